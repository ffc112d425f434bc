/**
 * Insights (issue 25; docs/decisions/insights.md): the engine that runs an insight kind's one query
 * text (DuckDB locally, Athena on AWS) and the store of the queries started, which is also the cache.
 */
import type { InsightKindName } from '../domain/insights/kinds';

/** What a query is rendered from besides its definition. */
export interface InsightQueryContext {
  projectId: string;
  /** The project's creation time (ISO 8601): bounds the identity partitions read. */
  projectCreatedAt: string;
  /** The arrival watermark (ISO 8601 UTC, InsightEngine.dataThrough): events received after it are left out. */
  dataThrough: string;
  /** The project's time zone (IANA name, or UTC): the days, weeks and hours counted. */
  timeZone: string;
}

export type InsightQueryState = 'running' | 'succeeded' | 'failed';

/** A query on the engine. */
export interface EngineQuery {
  /** The engine's ID of the query (Athena's QueryExecutionId; locally the query's own ID). */
  executionId: string;
  state: InsightQueryState;
  /** Bytes the engine read (Athena's DataScannedInBytes, what it bills); null when it does not say. */
  bytesScanned: number | null;
  /** Why it failed (the engine's reason). */
  error?: string;
}

export type InsightRow = Record<string, unknown>;

/** A query ready to start: its text, and the project and event days it reads. */
export interface PreparedInsightQuery {
  sql: string;
  projectId: string;
  fromDt: string;
  toDt: string;
}

export interface InsightEngine {
  /** Which engine: shown with the query, as the results' computation shows it. */
  readonly engine: 'duckdb' | 'athena';
  /** The arrival time through which the raw events are complete, at `nowMs` (ISO 8601 UTC). */
  dataThrough(nowMs: number): string;
  /** The kind's one query text for a definition (adapters/sql/insight-kinds.ts), with this engine's table names, and what it reads. */
  prepare(kind: InsightKindName, definition: unknown, context: InsightQueryContext): PreparedInsightQuery;
  /**
   * Starts the query. `token` makes a repeated start of the same query idempotent (Athena's
   * ClientRequestToken). Locally the query runs to its end before this returns.
   */
  start(query: PreparedInsightQuery, token: string): Promise<EngineQuery>;
  /** The query's state now. */
  status(executionId: string): Promise<EngineQuery>;
  /** A succeeded query's rows, every page. */
  rows(executionId: string): Promise<InsightRow[]>;
}

/** A query started for a project: the cache entry of its text and watermark. */
export interface InsightQueryRecord {
  project_id: string;
  /** sha256 of the query text and the watermark (hex, 32 characters): the cache key. */
  query_id: string;
  kind: InsightKindName;
  /** The definition as validated (defaults filled in). */
  definition: unknown;
  sql: string;
  engine: 'duckdb' | 'athena';
  data_through: string;
  /** The project's time zone the query counted in; absent on queries stored before time zones (UTC). */
  time_zone?: string;
  execution_id: string;
  state: InsightQueryState;
  bytes_scanned: number | null;
  error: string | null;
  /** Starts of this query so far (a failed one is started again, with a new token). */
  attempt: number;
  created_at: string;
  updated_at: string;
}

export interface InsightQueryStore {
  /** The query, or undefined when there is none or it expired by `nowMs` (INSIGHT_QUERY_TTL_DAYS after its creation). */
  get(projectId: string, queryId: string, nowMs: number): Promise<InsightQueryRecord | undefined>;
  /** Stores a new query; false when one with its ID exists already (nothing written). */
  create(record: InsightQueryRecord): Promise<boolean>;
  /** Replaces a stored query's state (state, bytes, error, execution, attempt, updated_at). */
  update(record: InsightQueryRecord): Promise<void>;
}
