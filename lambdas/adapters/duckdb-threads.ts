import { availableParallelism } from 'node:os';

/**
 * DuckDB's threads when it runs in the server's process (the results job; an adapter's tests): every
 * core but one, which stays for the server's own thread (ingestion, the handlers, JSON). The requests'
 * queries run in a process of their own at a lower priority, with every core
 * (lambdas/local/duckdb-process.ts). DuckDB's default takes every core, and a heavy insight then slowed
 * ingestion 2.7-3.2x (median, `npm run bench:blocking` on 2 cores); with one core left it was 1.8-2.5x,
 * while the 1M-event insights of `npm run bench:insights` went from 0.4-0.9 s to 0.7-1.6 s, still
 * under their 2 s goal (docs/development.md, "No request blocks the local server").
 */
export const LOCAL_DUCKDB_THREADS = Math.max(1, availableParallelism() - 1);

/** DuckDB settings of a local instance: `threads` as given, else LOCAL_DUCKDB_THREADS. */
export function localDuckDbConfig(threads?: number): Record<string, string> {
  return { threads: String(threads ?? LOCAL_DUCKDB_THREADS) };
}
