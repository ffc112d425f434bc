/**
 * The DynamoDB stores only the admin routes and the jobs use (AdminStore, lambdas/entry/aws.ts): the
 * entries using them pass these wirings to lambdaHandler, so the ingestion and SDK routes and the
 * authorizer neither carry nor load them (docs/decisions/bundles.md).
 */
import { DynamoAuditLog } from '../store/audit-log';
import { DynamoDashboardStore } from '../store/dashboard-store';
import { DynamoDeletionStore } from '../store/deletion-store';
import { DynamoExportStore } from '../store/export-store';
import { DynamoInsightQueryStore } from '../store/insight-query-store';
import { DynamoResultsStore } from '../store/results-store';
import { DynamoSavedInsightStore } from '../store/saved-insight-store';
import type { Wiring } from './aws';

export const dynamoResults: Wiring<'results'> = (env, ddb) => new DynamoResultsStore(ddb, env.TABLE_RESULTS);
export const dynamoInsightQueries: Wiring<'insightQueries'> = (env, ddb) => new DynamoInsightQueryStore(ddb, env.TABLE_INSIGHT_QUERIES);
export const dynamoSavedInsights: Wiring<'savedInsights'> = (env, ddb) => new DynamoSavedInsightStore(ddb, env.TABLE_SAVED_INSIGHTS);
export const dynamoDashboards: Wiring<'dashboards'> = (env, ddb) => new DynamoDashboardStore(ddb, env.TABLE_DASHBOARDS);
export const dynamoAuditLog: Wiring<'audit'> = (env, ddb) => new DynamoAuditLog(ddb, env.TABLE_AUDIT_LOG, env.AUDIT_RETENTION_DAYS);
export const dynamoDeletions: Wiring<'deletions'> = (env, ddb) => new DynamoDeletionStore(ddb, env.TABLE_DELETIONS);
export const dynamoExports: Wiring<'exports'> = (env, ddb) => new DynamoExportStore(ddb, env.TABLE_EXPORTS);

/** Every admin store's wiring: what the admin entries pass (with their sign-in, lambdas/entry/admin-wiring.ts). */
export const adminStores = {
  results: dynamoResults,
  insightQueries: dynamoInsightQueries,
  savedInsights: dynamoSavedInsights,
  dashboards: dynamoDashboards,
  audit: dynamoAuditLog,
  deletions: dynamoDeletions,
  exports: dynamoExports,
} as const;
