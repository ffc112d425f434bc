/**
 * The local wiring: the same adapters the Lambdas use (entry/aws.ts), pointed at dynalite and the local
 * Firehose endpoint, with the local stand-ins where AWS has a service (DuckDB for Athena, no usage-plan
 * registry, no geolocation unless configured).
 */
import type { FirehoseClient } from '@aws-sdk/client-firehose';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../deps';
import type { PersonRecords } from '../ports';
import type { GeoLookup } from '../domain/geo';
import { DuckDbAnalyticsViews } from '../adapters/duckdb-analyst-views';
import { landingDir } from '../adapters/duckdb-stream-views';
import { DELIVERY_ERRORS_PREFIX } from '../contract/delivery-errors';
import { DuckDbRecentEvents } from '../adapters/duckdb-recent-events';
import { DuckDbRecentUsers } from '../adapters/duckdb-recent-users';
import { DuckDbPlanningBaselines } from '../adapters/duckdb-planning-baseline';
import { DuckDbInsightEngine } from '../adapters/duckdb-insights';
import { DynamoInsightQueryStore } from '../store/insight-query-store';
import { DynamoSavedInsightStore } from '../store/saved-insight-store';
import { DynamoDashboardStore } from '../store/dashboard-store';
import { DuckDbResultsQuery } from '../adapters/duckdb-results-query';
import { NO_GEO } from '../adapters/geo-mmdb';
import { NO_RATE_LIMIT_REGISTRY } from '../adapters/no-rate-limit-registry';
import { DynamoApiKeyStore } from '../store/api-key-store';
import { DynamoAssignmentStore } from '../store/assignment-store';
import { DynamoEventLedger } from '../store/event-ledger';
import { DynamoExperimentStore } from '../store/experiment-store';
import { FirehoseRawStream } from '../store/firehose-raw-stream';
import { DynamoIdentityStore } from '../store/identity-store';
import { DynamoProjectStore } from '../store/project-store';
import { DynamoResultsStore } from '../store/results-store';
import { TABLES } from '../store/schema';
import { localTableName } from './dynalite';
import { DuckDbProcess } from './duckdb-process';

export const LOCAL_STREAMS = { events: 'tally-events', identities: 'tally-identities' } as const;

/** The data directory's landing folder of each raw stream (its S3 prefix locally), by stream. */
export const localStreamDirs = (dataDir: string) => ({ events: landingDir(dataDir, 'events'), identities: landingDir(dataDir, 'identities') });

/** What the local Firehose endpoint serves for a data directory: each stream's name, landing folder and errors/ folder. */
export function localFirehoseTargets(dataDir: string) {
  const dirs = localStreamDirs(dataDir);
  const errors = (stream: string) => join(dataDir, DELIVERY_ERRORS_PREFIX, stream);
  return {
    [LOCAL_STREAMS.events]: { dir: dirs.events, errors: errors('events') },
    [LOCAL_STREAMS.identities]: { dir: dirs.identities, errors: errors('identities') },
  };
}

import { OidcVerifier, type OidcConfig } from '../adapters/oidc-verifier';
import { DynamoAuditLog } from '../store/audit-log';
import { DynamoDeletionStore } from '../store/deletion-store';
import { DynamoExportStore } from '../store/export-store';
import { LocalExportFiles } from './export-files';

/** The stack's default (TallyStackProps.auditRetentionDays); dynalite has no TTL sweeper, so locally entries stay. */
const LOCAL_AUDIT_RETENTION_DAYS = 365;

export interface LocalWiring {
  ddb: DynamoDBDocumentClient;
  firehoseClient: FirehoseClient;
  dataDir: string;
  adminToken: string;
  geo?: GeoLookup;
  clock?: () => number;
  /** The one origin admin responses allow (CORS); unset, none (the dashboard is served on the API's origin). */
  dashboardOrigin?: string;
  /** The event ledger's claim lease; unset, CLAIM_LEASE_MS as on AWS. */
  claimLeaseMs?: number;
  /** People's sign-in: the OIDC issuer the admin API accepts tokens of; unset, the admin token only. */
  oidc?: OidcConfig | undefined;
  /** The server's origin (http://host:port): export download links point at it. */
  origin: string;
}

/** The tables a person's deletion removes IDs from (services/erase-people.ts), on the same dynalite. */
export function localPersonRecords(ddb: DynamoDBDocumentClient): PersonRecords {
  return {
    identities: new DynamoIdentityStore(ddb, localTableName(TABLES.identities)),
    assignments: new DynamoAssignmentStore(ddb, localTableName(TABLES.assignments)),
    experiments: new DynamoExperimentStore(ddb, localTableName(TABLES.experiments)),
    results: new DynamoResultsStore(ddb, localTableName(TABLES.results)),
    insightQueries: new DynamoInsightQueryStore(ddb, localTableName(TABLES.insight_queries)),
  };
}

export function localDeps({
  ddb,
  firehoseClient,
  dataDir,
  adminToken,
  geo,
  clock,
  dashboardOrigin,
  claimLeaseMs,
  oidc,
  origin,
}: LocalWiring): Deps & { exportFiles: LocalExportFiles } {
  // Athena's stand-in for the requests' queries: DuckDB in a process of its own, at a lower priority.
  const duckdb = new DuckDbProcess();
  return {
    projects: new DynamoProjectStore(ddb, localTableName(TABLES.projects)),
    keys: new DynamoApiKeyStore(ddb, localTableName(TABLES.api_keys)),
    rateLimits: NO_RATE_LIMIT_REGISTRY,
    ledger: new DynamoEventLedger(ddb, localTableName(TABLES.events), { dedupeWindowDays: 30, leaseMs: claimLeaseMs }),
    sink: new FirehoseRawStream(firehoseClient, LOCAL_STREAMS.events),
    identities: new DynamoIdentityStore(ddb, localTableName(TABLES.identities)),
    identitySink: new FirehoseRawStream(firehoseClient, LOCAL_STREAMS.identities),
    experiments: new DynamoExperimentStore(ddb, localTableName(TABLES.experiments)),
    assignments: new DynamoAssignmentStore(ddb, localTableName(TABLES.assignments)),
    experimentsCacheMs: 0,
    results: new DynamoResultsStore(ddb, localTableName(TABLES.results)),
    // Athena's local stand-in: DuckDB over the same NDJSON files the local Firehose endpoint writes.
    resultsQuery: new DuckDbResultsQuery(dataDir),
    recentEvents: new DuckDbRecentEvents(dataDir, undefined, duckdb),
    recentUsers: new DuckDbRecentUsers(dataDir, undefined, duckdb),
    planningBaselines: new DuckDbPlanningBaselines(dataDir, duckdb),
    insightEngine: new DuckDbInsightEngine(dataDir, { duckdb }),
    insightQueries: new DynamoInsightQueryStore(ddb, localTableName(TABLES.insight_queries)),
    savedInsights: new DynamoSavedInsightStore(ddb, localTableName(TABLES.saved_insights)),
    dashboards: new DynamoDashboardStore(ddb, localTableName(TABLES.dashboards)),
    // The Athena views' stand-in: a DuckDB script in the data directory (written by the server at start).
    analyticsViews: new DuckDbAnalyticsViews(dataDir),
    geo: geo ?? NO_GEO,
    clock: clock ?? Date.now,
    adminToken: async () => adminToken,
    deletions: new DynamoDeletionStore(ddb, localTableName(TABLES.deletions)),
    exports: new DynamoExportStore(ddb, localTableName(TABLES.exports)),
    exportFiles: new LocalExportFiles(dataDir, origin, clock ?? Date.now),
    audit: new DynamoAuditLog(ddb, localTableName(TABLES.audit_log), LOCAL_AUDIT_RETENTION_DAYS),
    ...(oidc ? { signIn: new OidcVerifier(oidc) } : {}),
    ...(dashboardOrigin ? { dashboardOrigin } : {}),
  };
}
