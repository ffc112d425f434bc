/**
 * A number in an insight query's rows, as either engine returns it: bigint or number (DuckDB), text
 * (Athena), NULL (null, absent or empty). Pure.
 */
export function rowNumber(value: unknown, label: string, kind: string): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'bigint' ? Number(value) : typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`${kind} query returned a bad ${label}: ${String(value)}`);
  return n;
}
