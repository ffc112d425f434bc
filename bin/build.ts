/**
 * `npm run build`: bundles every Lambda entry (one per route, plus the authorizer) with esbuild and
 * the options the stack uses (lib/function.ts BUNDLING), into dist/<name>/index.js, and prints each
 * bundle's size. `npm run build -- --analyze` also lists each bundle's largest inputs.
 */
import { build, type BuildOptions } from 'esbuild';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { FUNCTIONS } from '../lambdas/routes';
import { BUNDLING, entryFile, REPO_ROOT } from '../lib/function';

/** Every function of the stack (the route manifest): one per route, the scheduled jobs, the authorizer. */
export const ENTRIES: string[] = FUNCTIONS.map((f) => f.name);

/** The esbuild options NodejsFunction derives from BUNDLING (see aws-lambda-nodejs' bundling). */
export function esbuildOptions(name: string, outdir: string): BuildOptions {
  return {
    entryPoints: [entryFile(name)],
    outfile: join(outdir, name, 'index.js'),
    bundle: true,
    platform: 'node',
    target: BUNDLING.target,
    format: BUNDLING.format,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    sourcesContent: BUNDLING.sourcesContent,
    external: BUNDLING.externalModules,
    mainFields: BUNDLING.mainFields,
    loader: BUNDLING.loader,
    metafile: true,
    logLevel: 'warning',
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function main() {
  const analyze = process.argv.includes('--analyze');
  const outdir = join(REPO_ROOT, 'dist');
  mkdirSync(outdir, { recursive: true });
  const rows: string[][] = [['handler', 'index.js', 'gzip', 'index.js.map']];
  for (const name of ENTRIES) {
    const result = await build(esbuildOptions(name, outdir));
    const file = join(outdir, name, 'index.js');
    const size = statSync(file).size;
    rows.push([name, kb(size), kb(gzipSync(readFileSync(file)).length), kb(statSync(`${file}.map`).size)]);
    if (analyze && result.metafile) {
      const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint);
      const inputs = Object.entries(output?.inputs ?? {})
        .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)
        .slice(0, 8);
      for (const [input, { bytesInOutput }] of inputs) console.log(`  ${name}: ${kb(bytesInOutput).padStart(9)}  ${input}`);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
  console.log(`\nBundles in ${outdir} (minified, node22, CommonJS, every package bundled, the AWS SDK included).`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
