/**
 * The results query locally: DuckDB in-process (@duckdb/node-api) over the data directory's files,
 * running the same SQL text as Athena (sql/results-count.sql, its rules included).
 *
 * Per count():
 *  - builds the session's views of the events and identities (duckdb-stream-views.ts): the curated
 *    Parquet partitions of the project's days (only the run's days for the events, every day for the
 *    identities) plus the landing hours not yet compacted, each event once, under the names of the
 *    analyst views in <data dir>/views.sql, so the query the results show under "How this was
 *    computed" runs unchanged in `duckdb -init <data dir>/views.sql`; and the Trino-compat macros;
 *  - runs the rendered query, then counts the rows of the events view (rowsRead).
 * Each count() has its own connection (temp views and macros are per connection), so concurrent
 * counts on one instance do not interfere.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DEFAULT_ARRIVAL_ALLOWANCE_MS } from '../domain/results-watermark';
import type { Computation, CountRequest, CountResult, IncrementalCountRequest, IncrementalCountResult, ResultsQuery } from '../ports';
import { countIncrementalDuckDb, StateCannotServe } from './duckdb-results-state';
import { hasRows, localViewSql, streamViews } from './duckdb-stream-views';
import { gatedConnection } from './duckdb-gate';
import { localDuckDbConfig } from './duckdb-threads';
import { renderResultsCount, resultsCountParams, toCountResult } from './sql/render';

export { EVENT_COLUMNS, IDENTITY_COLUMNS, type DuckType } from './duckdb-columns';

/** View names the query's {{events}} and {{identities}} render to: the analyst views' (duckdb-analyst-views.ts), so a copied query runs there. */
export const LOCAL_TABLES = { events: 'events', identities: 'identities' } as const;

/**
 * Trino's json_extract_scalar(json, path): the scalar at path as text, NULL for objects, arrays,
 * JSON null and missing keys. DuckDB's json_extract_string returns objects as JSON text, hence the
 * json_type test. A property's path comes in Trino's quoted-subscript form $["key"]
 * (sql/property-path.ts), which Trino reads literally whatever the key holds. DuckDB's parser rejects
 * that form, and its own $."key" reads `*` as a wildcard; so tally_duck_path rewrites exactly that form
 * into a JSON pointer (RFC 6901: '/' + the key, `~` as `~0` and `/` as `~1`; the escapes `\"` and `\\`
 * read as Trino reads them, though Tally's own paths never carry one), which DuckDB reads literally for
 * every key. Other paths ($, $[n]) pass as they are.
 */
export const TRINO_COMPAT_MACROS = [
  String.raw`CREATE OR REPLACE TEMP MACRO tally_duck_path(path) AS CASE
    WHEN regexp_full_match(path, '\$\["(?:[^"\\]|\\["\\])*"\]')
      THEN '/' || replace(replace(regexp_replace(substr(path, 4, length(path) - 5), '\\(["\\])', '\1', 'g'), '~', '~0'), '/', '~1')
    ELSE path END`,
  `CREATE OR REPLACE TEMP MACRO json_extract_scalar(json_text, path) AS (
    CASE WHEN json_type(json_text, tally_duck_path(path)) IN ('OBJECT', 'ARRAY') THEN NULL
    ELSE json_extract_string(json_text, tally_duck_path(path)) END)`,
  // Trino's regexp_like (a numeric property test, rules/metric-value.sql): RE2 and Java
  // regular expressions agree on the patterns the SQL uses.
  `CREATE OR REPLACE TEMP MACRO regexp_like(text, pattern) AS regexp_matches(text, pattern)`,
  // Trino's json_parse (the property-names listing reads the keys of properties as a map's).
  `CREATE OR REPLACE TEMP MACRO json_parse(text) AS CAST(text AS JSON)`,
  // Trino's from_iso8601_timestamp, for analysts' queries (the views script, docs/data-model.md).
  `CREATE OR REPLACE TEMP MACRO from_iso8601_timestamp(text) AS CAST(text AS TIMESTAMPTZ)`,
];

export interface DuckDbResultsQueryOptions {
  /** DuckDB worker threads; default: DuckDB's (the number of cores). */
  threads?: number;
  /**
   * Count the rows of the scanned events files into rowsRead: one more pass over those files (about
   * a fifth of the query's time on NDJSON). @default true
   */
  rowsRead?: boolean;
  /**
   * How long after an event's arrival (received_at) its file may appear: the incremental state takes
   * in only events received at least this long before the run. @default DEFAULT_ARRIVAL_ALLOWANCE_MS
   */
  arrivalAllowanceMs?: number;
}

export class DuckDbResultsQuery implements ResultsQuery {
  private instance: Promise<DuckDBInstance> | undefined;
  private closed = false;

  /** dataDir holds events/ and identities/ (the local server's data directory). */
  constructor(
    private readonly dataDir: string,
    private readonly options: DuckDbResultsQueryOptions = {},
  ) {}

  /** The exact text count() runs for a request, over the temp views LOCAL_TABLES names. */
  describe(request: CountRequest): Computation {
    return { engine: 'duckdb', query: renderResultsCount(request, LOCAL_TABLES) };
  }

  count(request: CountRequest): Promise<CountResult> {
    return this.execute(request, this.describe(request).query);
  }

  /**
   * Runs a counting query text over the request's files (the temp views and macro set up as for
   * count()) and maps its rows to a result. count() runs describe(request).query through it; a test
   * runs the text the API reports to show it reproduces the reported counts.
   */
  async execute(request: CountRequest, sql: string): Promise<CountResult> {
    const params = resultsCountParams(request);
    const [eventViews, identityViews] = await Promise.all([
      streamViews(this.dataDir, 'events', { projectId: request.projectId, fromDt: params.covariate_from_dt as string, toDt: params.to_dt as string }),
      streamViews(this.dataDir, 'identities', { projectId: request.projectId }),
    ]);

    const connection = await gatedConnection(await this.db());
    try {
      for (const macro of TRINO_COMPAT_MACROS) await connection.run(macro);
      for (const view of [...eventViews, ...identityViews]) await connection.run(localViewSql(view));
      const rows = await readRows(connection, sql);
      const result = toCountResult(request, rows);
      if (this.options.rowsRead === false) return result;
      const rowsRead = !hasRows(eventViews) ? 0 : Number((await readRows(connection, `SELECT count(*) AS n FROM ${LOCAL_TABLES.events}`))[0]?.n ?? 0);
      return { ...result, rowsRead };
    } finally {
      connection.closeSync();
    }
  }

  /**
   * The incremental count (duckdb-results-state.ts): the experiment's Parquet state under
   * <dataDir>/results-state plus the events files modified since its watermark.
   */
  async countIncremental(request: IncrementalCountRequest): Promise<IncrementalCountResult> {
    const identities = await streamViews(this.dataDir, 'identities', { projectId: request.projectId });
    const connection = await gatedConnection(await this.db());
    try {
      for (const macro of TRINO_COMPAT_MACROS) await connection.run(macro);
      for (const view of identities) await connection.run(localViewSql(view));
      return await countIncrementalDuckDb(connection, request, {
        dataDir: this.dataDir,
        allowanceMs: this.options.arrivalAllowanceMs ?? DEFAULT_ARRIVAL_ALLOWANCE_MS,
        rowsRead: this.options.rowsRead !== false,
      });
    } catch (err) {
      if (!(err instanceof StateCannotServe)) throw err;
      const full = await this.count(request);
      return { ...full, incremental: { previousWatermark: err.watermark, watermark: err.watermark, committed: false, fullRecompute: true } };
    } finally {
      connection.closeSync();
    }
  }

  /** Closes the DuckDB instance; later count() calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    const instance = this.instance;
    this.instance = undefined;
    if (instance) (await instance).closeSync();
  }

  private db(): Promise<DuckDBInstance> {
    if (this.closed) throw new Error('DuckDbResultsQuery is closed');
    this.instance ??= DuckDBInstance.create(':memory:', localDuckDbConfig(this.options.threads));
    return this.instance;
  }
}

export async function readRows(connection: DuckDBConnection, sql: string): Promise<Array<Record<string, unknown>>> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJS() as Array<Record<string, unknown>>;
}
