/**
 * Insights locally: DuckDB over the NDJSON files, as the results query reads them
 * (duckdb-results-query.ts): only the query's event days of its project, every identity day of the
 * project. A query runs to its end inside start(); its rows are kept as a JSON file under
 * <data dir>/insight-results/, the stand-in for Athena's query result files, so a cached answer and a
 * poll read them back by the query's execution ID as on AWS. The watermark is the request's time, to
 * the millisecond: the local Firehose endpoint has written an event's file before its request is
 * answered, so every event stored before the query counts (rounded down to the second, the events
 * stored earlier in the same second were left out, and a trend run right after them showed 0). Result
 * files a day older than the queries' TTL are deleted at the first start of a process, as the results
 * bucket's lifecycle rule deletes Athena's (no query can name them any more).
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { arrivalWatermark, INSIGHT_QUERY_TTL_DAYS } from '../domain/insights/query-id';
import type { InsightKindName } from '../domain/insights/kinds';
import type { EngineQuery, InsightEngine, InsightQueryContext, InsightRow, PreparedInsightQuery } from '../ports';
import { InProcessDuckDb, type LocalDuckDb } from './duckdb-local';
import { curatedTable, EVENTS_TAIL_VIEW, streamView } from '../contract/landing';
import { streamViews } from './duckdb-stream-views';
import type { InsightTables } from './sql/insight-context';
import { insightQuery } from './sql/insight-kinds';

/** The session's views an insight reads (duckdb-stream-views.ts streamViews). */
const INSIGHT_TABLES: InsightTables = { curated_events: curatedTable('events'), events_tail: EVENTS_TAIL_VIEW, identities: streamView('identities') };

/** Execution IDs are the start tokens: hex and dashes only, so they name a file safely. */
const EXECUTION_ID = /^[0-9a-f]{32}(-\d+)?$/;

/** A result file older than this is deleted: its query expired a day before (no poll or cache reads it). */
const RESULT_FILE_MAX_AGE_MS = (INSIGHT_QUERY_TTL_DAYS + 1) * 86_400_000;

/** The data directory's folder of the insight queries' result files (<execution ID>.json). */
export const INSIGHT_RESULTS_DIR = 'insight-results';

export class DuckDbInsightEngine implements InsightEngine {
  readonly engine = 'duckdb' as const;
  private readonly duckdb: LocalDuckDb;
  private pruned: Promise<void> | undefined;

  /** `options.duckdb`: where queries run (the local server's query process); else DuckDB in this process, with `options.threads`. */
  constructor(
    private readonly dataDir: string,
    options: { threads?: number; duckdb?: LocalDuckDb } = {},
  ) {
    this.duckdb = options.duckdb ?? new InProcessDuckDb(options.threads === undefined ? {} : { threads: String(options.threads) });
  }

  private get resultsDir(): string {
    return join(this.dataDir, INSIGHT_RESULTS_DIR);
  }

  dataThrough(nowMs: number): string {
    return arrivalWatermark(nowMs, 0, 1);
  }

  prepare(kind: InsightKindName, definition: unknown, context: InsightQueryContext): PreparedInsightQuery {
    const query = insightQuery(kind);
    return {
      sql: query.render(definition, { ...context, tables: INSIGHT_TABLES }),
      projectId: context.projectId,
      ...query.scanDays(definition, context.timeZone),
    };
  }

  async start(query: PreparedInsightQuery, token: string): Promise<EngineQuery> {
    if (!EXECUTION_ID.test(token)) throw new Error(`Insight query token "${token}" is not a query ID`);
    this.pruned ??= this.deleteExpiredResults(Date.now());
    await this.pruned;
    try {
      await this.run(query, join(this.resultsDir, `${token}.json`));
    } catch (err) {
      return { executionId: token, state: 'failed', bytesScanned: null, error: err instanceof Error ? err.message : String(err) };
    }
    return { executionId: token, state: 'succeeded', bytesScanned: null };
  }

  async status(executionId: string): Promise<EngineQuery> {
    try {
      await this.readResult(executionId);
      return { executionId, state: 'succeeded', bytesScanned: null };
    } catch {
      return { executionId, state: 'failed', bytesScanned: null, error: `no result file for query ${executionId} in ${this.resultsDir}` };
    }
  }

  async rows(executionId: string): Promise<InsightRow[]> {
    return this.readResult(executionId);
  }

  private async readResult(executionId: string): Promise<InsightRow[]> {
    if (!EXECUTION_ID.test(executionId)) throw new Error(`"${executionId}" is not an insight query's execution ID`);
    return JSON.parse(await readFile(join(this.resultsDir, `${executionId}.json`), 'utf8')) as InsightRow[];
  }

  /** Deletes the result files of queries expired for a day (by the file's time: when the query ran). */
  private async deleteExpiredResults(nowMs: number): Promise<void> {
    const names = await readdir(this.resultsDir).catch(() => [] as string[]);
    for (const name of names) {
      // A result file, or one left aside by a process that stopped before renaming it.
      if (!EXECUTION_ID.test(name.replace(/\.json(\.[0-9a-f-]{36}\.tmp)?$/, ''))) continue;
      const path = join(this.resultsDir, name);
      const file = await stat(path).catch(() => undefined); // deleted meanwhile by another process
      if (file && nowMs - file.mtimeMs > RESULT_FILE_MAX_AGE_MS) await rm(path, { force: true });
    }
  }

  /** Runs the query and writes its rows as the result file (duckdb-rows-file.mjs: never a figure that is not finite). */
  private async run(query: PreparedInsightQuery, file: string): Promise<void> {
    const views = (
      await Promise.all([
        streamViews(this.dataDir, 'events', { projectId: query.projectId, fromDt: query.fromDt, toDt: query.toDt }),
        streamViews(this.dataDir, 'identities', { projectId: query.projectId }),
      ])
    ).flat();
    await this.duckdb.use(views, (session) => session.writeRows(query.sql, file));
  }

  close(): Promise<void> {
    return this.duckdb.close();
  }
}
