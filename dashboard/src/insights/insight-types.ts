/** The insights API's answers as the dashboard reads them (docs/api.md "Insights"). */
export type { TrendLine, TrendsResult } from '../../../lambdas/domain/insights/trends-result';

/** POST .../insights/<kind> and GET .../insights/queries/{query_id}: 200 succeeded, 202 running. */
export interface InsightAnswer<R> {
  status: 'succeeded' | 'running';
  query_id: string;
  kind: string;
  definition: unknown;
  result?: R;
  data_through: string;
  /** The project's time zone the query counted days, weeks and hours in. */
  time_zone?: string;
  cached: boolean;
  started_at: string;
  poll_url: string;
  engine: 'duckdb' | 'athena';
  sql: string;
  bytes_scanned: number | null;
}
