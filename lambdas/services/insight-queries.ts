/**
 * Running an insight (docs/decisions/insights.md): render the kind's one query for the definition and
 * the current data watermark, answer from the query already started for that text and watermark if
 * there is one (the cache), else start it; then wait for it up to a budget, so a quick query answers
 * at once and a slow one answers "running" and is polled by its ID.
 */
import { insightQueryId, startToken } from '../domain/insights/query-id';
import { projectTimeZone } from '../domain/time-zone';
import type { InsightKindName } from '../domain/insights/kinds';
import type { EngineQuery, InsightEngine, InsightQueryRecord, InsightQueryStore, InsightRow, Project } from '../ports';

export interface InsightQueryDeps {
  insightEngine: InsightEngine;
  insightQueries: InsightQueryStore;
  clock: () => number;
}

export interface InsightAnswer {
  record: InsightQueryRecord;
  /** The query was started by an earlier request (its answer, or its progress, is reused). */
  cached: boolean;
  /** The rows, once the query succeeded. */
  rows?: InsightRow[];
  /** The query failed during this request (reported once: the failure metric). */
  failedNow: boolean;
}

/** First wait between status checks; doubles up to MAX_POLL_MS. */
const FIRST_POLL_MS = 200;
const MAX_POLL_MS = 2_000;

export async function runInsight(
  deps: InsightQueryDeps,
  project: Pick<Project, 'id' | 'created_at' | 'time_zone'>,
  kind: InsightKindName,
  definition: unknown,
  options: { waitMs: number },
): Promise<InsightAnswer> {
  const deadline = Date.now() + options.waitMs;
  const dataThrough = deps.insightEngine.dataThrough(deps.clock());
  const timeZone = projectTimeZone(project);
  const prepared = deps.insightEngine.prepare(kind, definition, { projectId: project.id, projectCreatedAt: project.created_at, dataThrough, timeZone });
  const queryId = insightQueryId(prepared.sql, dataThrough);
  const existing = await deps.insightQueries.get(project.id, queryId, deps.clock());
  if (existing && existing.state !== 'failed') return settle(deps, existing, true, deadline);

  // New, or failed before: start it (again, with the next token, so the engine runs it anew).
  const attempt = existing ? existing.attempt + 1 : 1;
  const started = await deps.insightEngine.start(prepared, startToken(queryId, attempt));
  const now = new Date(deps.clock()).toISOString();
  const record: InsightQueryRecord = withEngineState(
    {
      project_id: project.id,
      query_id: queryId,
      kind,
      definition,
      sql: prepared.sql,
      engine: deps.insightEngine.engine,
      data_through: dataThrough,
      time_zone: timeZone,
      execution_id: started.executionId,
      state: 'running',
      bytes_scanned: null,
      error: null,
      attempt,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    },
    started,
  );
  if (existing) {
    await deps.insightQueries.update(record);
  } else if (!(await deps.insightQueries.create(record))) {
    // Another request started the same query meanwhile (the engine's token made both starts one).
    const other = await deps.insightQueries.get(project.id, queryId, deps.clock());
    if (other) return settle(deps, other, true, deadline);
  }
  return settle(deps, record, false, deadline, record.state === 'failed');
}

/** A query by its ID, as it is now (one status check if it was running); undefined for none in the project. */
export async function pollInsight(deps: InsightQueryDeps, projectId: string, queryId: string): Promise<InsightAnswer | undefined> {
  const record = await deps.insightQueries.get(projectId, queryId, deps.clock());
  return record ? settle(deps, record, true, Date.now()) : undefined;
}

/** Waits for a running query until the deadline (at least one status check), then reads its rows if it succeeded. */
async function settle(deps: InsightQueryDeps, record: InsightQueryRecord, cached: boolean, deadline: number, failedNow = false): Promise<InsightAnswer> {
  let current = record;
  let delay = FIRST_POLL_MS;
  let checked = false;
  while (current.state === 'running' && (!checked || Date.now() < deadline)) {
    if (checked) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - Date.now()))));
      delay = Math.min(delay * 2, MAX_POLL_MS);
    }
    checked = true;
    const status = await deps.insightEngine.status(current.execution_id);
    if (status.state !== current.state || status.bytesScanned !== current.bytes_scanned) {
      current = withEngineState({ ...current, updated_at: new Date(deps.clock()).toISOString() }, status);
      await deps.insightQueries.update(current);
      if (current.state === 'failed') failedNow = true;
    }
  }
  if (current.state !== 'succeeded') return { record: current, cached, failedNow };
  return { record: current, cached, rows: await deps.insightEngine.rows(current.execution_id), failedNow };
}

function withEngineState(record: InsightQueryRecord, query: EngineQuery): InsightQueryRecord {
  return { ...record, execution_id: query.executionId, state: query.state, bytes_scanned: query.bytesScanned, error: query.error ?? null };
}
