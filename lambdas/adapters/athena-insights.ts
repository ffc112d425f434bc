/**
 * Insights on AWS: Athena, asynchronously (docs/decisions/insights.md, "On AWS"). start() sends
 * StartQueryExecution in the stack's workgroup with a ClientRequestToken derived from the query's
 * cache key, so a start repeated (a retried request, two users opening the same insight) returns the
 * execution already created instead of running the query twice; status() is GetQueryExecution (state,
 * bytes scanned); rows() reads GetQueryResults page by page (1,000 rows a page). The query text is the
 * kind's one source with the Glue table names; Athena prunes to the project's and range's partitions
 * through partition projection.
 */
import { GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand, type AthenaClient, type QueryExecution } from '@aws-sdk/client-athena';
import { curatedTable, EVENTS_TAIL_VIEW, streamView } from '../contract/landing';
import { arrivalWatermark } from '../domain/insights/query-id';
import type { InsightKindName } from '../domain/insights/kinds';
import type { EngineQuery, InsightEngine, InsightQueryContext, InsightRow, PreparedInsightQuery } from '../ports';
import { insightQuery } from './sql/insight-kinds';

export interface AthenaInsightEngineOptions {
  workGroup: string;
  /** Glue database: the execution context and the qualifier of the tables. */
  database: string;
  /** How long after its arrival an event may reach S3 (RESULTS_ARRIVAL_ALLOWANCE_SECONDS): the watermark is that far back. */
  arrivalAllowanceMs: number;
  /** The watermark's step: requests within one step share it, and the cached answer. @default 60_000 */
  watermarkStepMs?: number;
}

/** The largest page GetQueryResults returns. */
const PAGE_ROWS = 1000;

export class AthenaInsightEngine implements InsightEngine {
  readonly engine = 'athena' as const;

  constructor(
    private readonly athena: AthenaClient,
    private readonly options: AthenaInsightEngineOptions,
  ) {}

  dataThrough(nowMs: number): string {
    return arrivalWatermark(nowMs, this.options.arrivalAllowanceMs, this.options.watermarkStepMs ?? 60_000);
  }

  prepare(kind: InsightKindName, definition: unknown, context: InsightQueryContext): PreparedInsightQuery {
    const query = insightQuery(kind);
    const q = (name: string) => `${this.options.database}.${name}`;
    const tables = { curated_events: q(curatedTable('events')), events_tail: q(EVENTS_TAIL_VIEW), identities: q(streamView('identities')) };
    return { sql: query.render(definition, { ...context, tables }), projectId: context.projectId, ...query.scanDays(definition, context.timeZone) };
  }

  async start(query: PreparedInsightQuery, token: string): Promise<EngineQuery> {
    const started = await this.athena.send(
      new StartQueryExecutionCommand({
        QueryString: query.sql,
        WorkGroup: this.options.workGroup,
        QueryExecutionContext: { Database: this.options.database },
        ClientRequestToken: token,
      }),
    );
    if (!started.QueryExecutionId) throw new Error('Athena StartQueryExecution returned no QueryExecutionId');
    return this.status(started.QueryExecutionId);
  }

  async status(executionId: string): Promise<EngineQuery> {
    const { QueryExecution: execution } = await this.athena.send(new GetQueryExecutionCommand({ QueryExecutionId: executionId }));
    return engineQuery(executionId, execution);
  }

  async rows(executionId: string): Promise<InsightRow[]> {
    const rows: InsightRow[] = [];
    let columns: string[] | undefined;
    let nextToken: string | undefined;
    let first = true;
    do {
      const page = await this.athena.send(new GetQueryResultsCommand({ QueryExecutionId: executionId, NextToken: nextToken, MaxResults: PAGE_ROWS }));
      columns ??= (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c) => c.Name ?? '');
      (page.ResultSet?.Rows ?? []).forEach((row, index) => {
        if (first && index === 0) return; // the header row
        const values = row.Data ?? [];
        rows.push(Object.fromEntries(columns!.map((name, i) => [name, values[i]?.VarCharValue ?? null])));
      });
      first = false;
      nextToken = page.NextToken;
    } while (nextToken);
    return rows;
  }
}

function engineQuery(executionId: string, execution: QueryExecution | undefined): EngineQuery {
  const state = execution?.Status?.State;
  const bytesScanned = execution?.Statistics?.DataScannedInBytes ?? null;
  if (state === 'SUCCEEDED') return { executionId, state: 'succeeded', bytesScanned };
  if (state === 'FAILED' || state === 'CANCELLED') {
    const reason = execution?.Status?.AthenaError?.ErrorMessage ?? execution?.Status?.StateChangeReason ?? 'no reason given';
    return { executionId, state: 'failed', bytesScanned, error: `Athena query ${executionId} ${state}: ${reason}` };
  }
  return { executionId, state: 'running', bytesScanned };
}
