/** Everything a handler may depend on. Each handler factory asks for the subset it uses. */
import type { GeoLookup } from './domain/geo';
import type { CompactionOptions } from './services/compact-landing';
import type { ErasureDeps, ErasureOptions } from './services/erase-people';
import type {
  AnalyticsViews,
  CompactionStore,
  RetentionStore,
  ApiKeyStore,
  AssignmentStore,
  EventLedger,
  RawEventStream,
  ExperimentStore,
  IdentityStream,
  IdentityStore,
  ProjectStore,
  RateLimitRegistry,
  RecentEvents,
  RecentUsers,
  PlanningBaselines,
  InsightEngine,
  InsightQueryStore,
  SavedInsightStore,
  DashboardStore,
  SignInVerifier,
  AuditLog,
  DeletionStore,
  ExportFiles,
  ExportStore,
  PersonStreamRows,
  ResultsQuery,
  ResultsStore,
} from './ports';

export interface Deps {
  projects: ProjectStore;
  keys: ApiKeyStore;
  rateLimits: RateLimitRegistry;
  ledger: EventLedger;
  sink: RawEventStream;
  identities: IdentityStore;
  identitySink: IdentityStream;
  experiments: ExperimentStore;
  assignments: AssignmentStore;
  /** How long a Lambda instance may serve a cached experiment list: 0 locally, a few seconds on AWS. */
  experimentsCacheMs: number;
  results: ResultsStore;
  resultsQuery: ResultsQuery;
  /** The recent-events listing over the raw event stream (DuckDB locally, Athena on AWS). */
  recentEvents: RecentEvents;
  /** The recent-users listing over the same stream and window. */
  recentUsers: RecentUsers;
  /** The planning baseline over the raw event stream (DuckDB locally, Athena on AWS). */
  planningBaselines: PlanningBaselines;
  /** Insight queries (DuckDB locally, Athena on AWS) and the queries started (DynamoDB), their cache. */
  insightEngine: InsightEngine;
  insightQueries: InsightQueryStore;
  /** How long an insights request waits for its query before answering 202 (default INSIGHT_WAIT_MS, handlers/insights.ts); tests shorten it. */
  insightWaitMs?: number;
  savedInsights: SavedInsightStore;
  dashboards: DashboardStore;
  /** The analyst views (unique_events): Athena views on AWS, made at deploy; locally <data dir>/views.sql. */
  analyticsViews: AnalyticsViews;
  /**
   * The scheduled compaction job on AWS (lambdas/entry/compact-landing.ts): its store and options.
   * Locally the server schedules compaction itself (lambdas/local/compaction-scheduler.ts).
   */
  compaction?: {
    store: CompactionStore & RetentionStore;
    options: Omit<CompactionOptions, 'nowMs' | 'deadlineMs'>;
    /** Keep events this many days (KEEP_EVENTS_DAYS, docs/decisions/retention.md); unset, forever. */
    keepEventsDays?: number;
    /** People's deletions, carried out after each compaction (services/erase-people.ts); unset, none run. */
    erasure?: Omit<ErasureDeps, 'compaction'> & Pick<ErasureOptions, 'beforeStep'> & { exportRows?: PersonStreamRows };
  };
  /** Days events are kept (KEEP_EVENTS_DAYS): the results of running experiments warn before a cut reaches them; unset, forever. */
  keepEventsDays?: number;
  geo: GeoLookup;
  clock: () => number;
  /** How long POST .../results/refresh computes before answering 202 (default REFRESH_BUDGET_MS, handlers/results.ts); tests shorten it. */
  refreshBudgetMs?: number;
  adminToken: () => Promise<string>;
  /** People's deletions (docs/decisions/erasure.md): requests and progress; the compaction job carries them out. */
  deletions: DeletionStore;
  /** People's exports (docs/decisions/erasure.md "Export"): requests and progress; the compaction job carries them out. */
  exports: ExportStore;
  /** The export files and their download links (exports/ of the raw bucket on AWS, of the data directory locally). */
  exportFiles: ExportFiles;
  /** The audit log of admin writes. */
  audit: AuditLog;
  /** People's sign-in (OIDC tokens, lambdas/adapters/oidc-verifier.ts); unset, only the admin token signs in. */
  signIn?: SignInVerifier;
  /** The dashboard's origin, the only one admin responses allow (CORS); unset, none (the dashboard is same-origin). */
  dashboardOrigin?: string;
}
