/**
 * At most DUCKDB_CALLS_IN_FLIGHT DuckDB calls at once in the process (docs/development.md, "No request
 * blocks the local server"). @duckdb/node-api runs each call (a query, a chunk fetch, a connect) as a
 * job of libuv's thread pool, which has 4 threads by default and is also where Node reads and writes
 * files, inflates gzip and hashes: with a query on every thread, an ingestion request's file write
 * waited behind them for seconds (a worst trends query beside ingestion took a batch from tens of
 * milliseconds to 2-5 s). Gated, queries wait their turn on the event loop, costing no thread, and
 * the pool always has threads for the rest of the server.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * Two of libuv's four threads: the other two stay free for files, gzip and crypto, and one long query
 * (a results job) still leaves room for another request's (a listing). With one, a long query held
 * every other DuckDB reader; with none, ingestion waited behind four.
 */
export const DUCKDB_CALLS_IN_FLIGHT = 2;

let inFlight = 0;
const waiting: Array<() => void> = [];

/** Runs `call` when fewer than DUCKDB_CALLS_IN_FLIGHT gated calls are running, in arrival order. */
export async function gated<T>(call: () => Promise<T>): Promise<T> {
  if (inFlight >= DUCKDB_CALLS_IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
  else inFlight++;
  try {
    return await call();
  } finally {
    // The slot passes straight to the next caller, or is freed.
    const next = waiting.shift();
    if (next) next();
    else inFlight--;
  }
}

/** The connection's methods that run on the thread pool: each call goes through the gate. */
const ASYNC_METHODS = new Set<string | symbol>([
  'run',
  'runAndRead',
  'runAndReadAll',
  'runAndReadUntil',
  'stream',
  'streamAndRead',
  'streamAndReadAll',
  'streamAndReadUntil',
  'start',
  'startThenRead',
  'startThenReadAll',
  'startThenReadUntil',
  'startStream',
  'startStreamThenRead',
  'startStreamThenReadAll',
  'startStreamThenReadUntil',
  'prepare',
  'extractStatements',
  'createAppender',
]);

/** A new connection of the instance whose thread-pool calls are gated. */
export async function gatedConnection(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await gated(() => instance.connect());
  return new Proxy(connection, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      return ASYNC_METHODS.has(prop)
        ? (...args: unknown[]) => gated(() => method.apply(target, args) as Promise<unknown>)
        : (...args: unknown[]) => method.apply(target, args);
    },
  });
}
