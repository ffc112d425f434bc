/**
 * The one text loader for .sql files. The Lambda bundles embed a .sql import as a string with
 * esbuild's text loader (lib/function.ts BUNDLING.loader); vitest (vitest.config.ts) and tsx (npm
 * start, benchmarks, smoke test: register.mjs) turn it into the same module with textModule.
 */
import { readFile } from 'node:fs/promises';

/** A .sql file as an ES module whose default export is its text, exactly as esbuild's text loader makes it. */
export const textModule = (text) => `export default ${JSON.stringify(text)};\n`;

export const isSqlFile = (urlOrPath) => /\.sql$/.test(urlOrPath.split('?')[0]);

/** Node module hook (module.register): loads .sql as text, everything else as before. */
export async function load(url, context, nextLoad) {
  if (!isSqlFile(url)) return nextLoad(url, context);
  return { format: 'module', shortCircuit: true, source: textModule(await readFile(new URL(url), 'utf8')) };
}
