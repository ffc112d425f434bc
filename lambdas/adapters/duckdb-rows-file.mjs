// The rows of a local query as the file a poll reads back (Athena's query result file's stand-in), in
// plain JavaScript so the local query engine's process (lambdas/local/duckdb-process-child.mjs) runs
// it without a TypeScript loader, and the in-process engine (duckdb-local.ts) runs the same code.
import { randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * JSON would write Infinity and NaN as null, which a shaper reads as "nothing" (a 0 in a sum): a figure
 * that is not a finite number fails the query loudly instead (the numeric rule keeps every sum finite,
 * docs/api.md "The numeric rule", so this is a bug's signal, not a client's).
 */
export function notFiniteFigure(rows) {
  for (const row of rows) {
    for (const [column, value] of Object.entries(row)) {
      if (typeof value === 'number' && !Number.isFinite(value)) return `the query returned ${String(value)} in ${column}, not a finite number`;
    }
  }
  return undefined;
}

/**
 * Writes `rows` as a JSON array to `file`: counts, which DuckDB gives as bigint, as numbers (every count
 * here is far below 2^53). Written aside, then renamed into place (atomic): a request that started the
 * same query at the same moment writes the same file, and a reader must never see it half written.
 * Throws, writing nothing, when a figure is not finite.
 */
export async function writeRowsFile(rows, file) {
  const bad = notFiniteFigure(rows);
  if (bad) throw new Error(bad);
  const text = JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? Number(value) : value));
  await mkdir(dirname(file), { recursive: true });
  const aside = `${file}.${randomUUID()}.tmp`;
  await writeFile(aside, text);
  await rename(aside, file);
  return rows.length;
}
