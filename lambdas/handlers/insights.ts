/**
 * The insights admin API (issue 25; docs/api.md "Insights"; docs/decisions/insights.md):
 * POST /admin/v1/projects/{project_id}/insights/<kind> runs a kind's definition, one route and
 * function per kind; GET /admin/v1/projects/{project_id}/insights/queries/{query_id} polls a query.
 * Both answer 200 with the result once the query succeeded, 202 while it runs, 502 when it failed.
 */
import { FUNCTION_DIMENSION, INSIGHT_QUERY_FAILED, METRICS_NAMESPACE } from '../contract/metrics';
import { INSIGHT_KINDS, insightResult, type InsightKind, type InsightKindName } from '../domain/insights/kinds';
import { QUERY_ID_SHAPE } from '../domain/insights/query-id';
import { projectTimeZone } from '../domain/time-zone';
import { ApiError, notFound } from '../http/api-error';
import { json, type HttpEvent, type HttpResult } from '../http/event';
import { jsonBody } from '../http/validate';
import { log } from '../logging/log';
import { emitMetric, functionName } from '../logging/metric';
import type { InsightEngine, InsightQueryStore, ProjectStore } from '../ports';
import { pollInsight, runInsight, type InsightAnswer } from '../services/insight-queries';
import { pathParam, requireProject, wrapAdmin, type AdminDeps } from './admin';

/**
 * How long a request waits for its query before answering 202: inside API Gateway's 29 s and the
 * route's 28 s timeout, leaving time to read a large result's pages (GetQueryResults) and answer.
 */
export const INSIGHT_WAIT_MS = 15_000;

export interface InsightsDeps extends AdminDeps {
  projects: ProjectStore;
  insightEngine: InsightEngine;
  insightQueries: InsightQueryStore;
  clock: () => number;
  /** Overrides INSIGHT_WAIT_MS (tests). */
  insightWaitMs?: number;
}

/** POST .../insights/trends */
export function createInsightsTrendsHandler(deps: InsightsDeps) {
  return insightKindHandler('trends', 'admin-insights-trends', deps);
}

/** POST .../insights/funnels */
export function createInsightsFunnelsHandler(deps: InsightsDeps) {
  return insightKindHandler('funnels', 'admin-insights-funnels', deps);
}

/** POST .../insights/retention */
export function createInsightsRetentionHandler(deps: InsightsDeps) {
  return insightKindHandler('retention', 'admin-insights-retention', deps);
}

function insightKindHandler(kind: InsightKindName, route: string, deps: InsightsDeps) {
  return wrapAdmin(route, deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const schema: InsightKind<unknown>['definition'] = INSIGHT_KINDS[kind].definition;
    const definition = await jsonBody(event, schema);
    const answer = await loudly(() => runInsight(deps, project, kind, definition, { waitMs: deps.insightWaitMs ?? INSIGHT_WAIT_MS }));
    return respond(event, answer);
  });
}

/** GET .../insights/queries/{query_id} */
export function createInsightsQueryGetHandler(deps: InsightsDeps) {
  return wrapAdmin('admin-insights-query-get', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const queryId = pathParam(event, 'query_id');
    const answer = QUERY_ID_SHAPE.test(queryId) ? await loudly(() => pollInsight(deps, project.id, queryId)) : undefined;
    if (!answer) throw notFound(`Insight query ${queryId} not found in project ${project.id} (queries are kept 7 days: POST the definition again)`);
    return respond(event, answer);
  });
}

/** A call to the engine or the store that throws (Athena refusing a start, a throttled poll) counts as a failure too; the request answers 5xx. */
async function loudly<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof ApiError)) reportFailure();
    throw err;
  }
}

function reportFailure(): void {
  emitMetric({ namespace: METRICS_NAMESPACE, name: INSIGHT_QUERY_FAILED, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
}

function respond(event: HttpEvent, answer: InsightAnswer): HttpResult {
  const { record } = answer;
  const pollPath = `/admin/v1/projects/${encodeURIComponent(record.project_id)}/insights/queries/${record.query_id}`;
  if (record.state === 'failed') {
    if (answer.failedNow) {
      // The loud side (lib/alarms.ts): one metric per query that fails; the log line says which.
      log('error', 'insight query failed (metric InsightQueryFailed)', {
        project_id: record.project_id,
        query_id: record.query_id,
        kind: record.kind,
        execution_id: record.execution_id,
        reason: record.error,
      });
      reportFailure();
    }
    throw new ApiError(502, `The insight query failed on ${record.engine}: ${record.error ?? 'no reason given'}. POST the definition again to retry it.`);
  }
  const body = {
    status: record.state,
    query_id: record.query_id,
    kind: record.kind,
    definition: record.definition,
    ...(record.state === 'succeeded'
      ? { result: insightResult(record.kind, record.definition, answer.rows ?? [], { dataThrough: record.data_through, timeZone: projectTimeZone(record) }) }
      : {}),
    data_through: record.data_through,
    time_zone: projectTimeZone(record),
    cached: answer.cached,
    started_at: record.created_at,
    poll_url: pollPath,
    engine: record.engine,
    sql: record.sql,
    bytes_scanned: record.bytes_scanned,
  };
  if (record.state === 'succeeded') return json(200, body);
  return json(202, body, { Location: calledBase(event) + pollPath, 'Retry-After': '2' });
}

/** The API's base as the client called it: API Gateway's stage prefix when there is one. */
function calledBase(event: HttpEvent): string {
  const called = event.requestContext?.path;
  const routePath = event.path;
  if (called && routePath && called.endsWith(routePath)) return called.slice(0, called.length - routePath.length);
  return '';
}
