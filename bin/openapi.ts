/**
 * `npm run openapi [-- <file>]`: writes the OpenAPI 3.1 document (lambdas/openapi.ts) to <file>,
 * dist/openapi.json by default. The local server serves the same document at GET /openapi.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../lambdas/openapi';

const file = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist/openapi.json', import.meta.url)));
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`OpenAPI 3.1 document written to ${file}`);
