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

// Each wiring keeps its store's own type (satisfies, not a Wiring annotation): the compaction job's
// wiring uses them too, where a person's deletion calls methods beyond the ports' (compaction-wiring.ts).
export const dynamoResults = ((env, ddb) => new DynamoResultsStore(ddb, env.TABLE_RESULTS)) satisfies Wiring<'results'>;
export const dynamoInsightQueries = ((env, ddb) => new DynamoInsightQueryStore(ddb, env.TABLE_INSIGHT_QUERIES)) satisfies Wiring<'insightQueries'>;
export const dynamoSavedInsights = ((env, ddb) => new DynamoSavedInsightStore(ddb, env.TABLE_SAVED_INSIGHTS)) satisfies Wiring<'savedInsights'>;
export const dynamoDashboards = ((env, ddb) => new DynamoDashboardStore(ddb, env.TABLE_DASHBOARDS)) satisfies Wiring<'dashboards'>;
export const dynamoAuditLog = ((env, ddb) => new DynamoAuditLog(ddb, env.TABLE_AUDIT_LOG, env.AUDIT_RETENTION_DAYS)) satisfies Wiring<'audit'>;
export const dynamoDeletions = ((env, ddb) => new DynamoDeletionStore(ddb, env.TABLE_DELETIONS)) satisfies Wiring<'deletions'>;
export const dynamoExports = ((env, ddb) => new DynamoExportStore(ddb, env.TABLE_EXPORTS)) satisfies Wiring<'exports'>;

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
