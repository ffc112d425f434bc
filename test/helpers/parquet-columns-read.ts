/**
 * The columns DuckDB's plan reads from Parquet (its READ_PARQUET nodes' projections and filters, from
 * a JSON profile: `PRAGMA enable_profiling = 'json'`), per stream: a scan reading canonical_id is of
 * the identities, any other of the events. What Athena bills of a columnar table is the columns a
 * query references; this is what the same text makes DuckDB read (npm run bench:insights,
 * test/engines/insight-columns.test.ts).
 */
import { CURATED_COLUMNS } from '../../lambdas/adapters/duckdb-stream-views';

export function parquetColumnsRead(profile: unknown): { events: Set<string>; identities: Set<string> } {
  const read = { events: new Set<string>(), identities: new Set<string>() };
  const walk = (node: Record<string, unknown>) => {
    const info = node.extra_info as Record<string, unknown> | undefined;
    if (info && info.Function === 'READ_PARQUET') {
      const words = `${JSON.stringify(info.Projections ?? '')} ${JSON.stringify(info.Filters ?? '')}`.split(/[^A-Za-z0-9_]+/);
      const stream = words.includes('canonical_id') ? 'identities' : 'events';
      const known = new Set(Object.keys(CURATED_COLUMNS[stream]));
      for (const word of words) if (known.has(word)) read[stream].add(word);
    }
    for (const child of (node.children as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
  };
  walk(profile as Record<string, unknown>);
  return read;
}
