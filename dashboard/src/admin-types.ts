/** The admin API's response shapes the dashboard reads (docs/api.md, "Admin API"). */
import type { ExperimentStatus } from '../../lambdas/domain/experiment';
import type { SeriesPoint } from '../../lambdas/domain/results-series';
import type { Experiment } from '../../lambdas/domain/experiment';
import type { ResultsSummary } from '../../lambdas/domain/results-summary';
import type { MetricResult } from '../../lambdas/domain/metric-results';
import type { ExperimentStats } from '../../lambdas/domain/stats';
import type { BreakdownResult } from '../../lambdas/domain/experiment-breakdowns';

export interface Project {
  id: string;
  name: string;
  created_at: string;
  /** IANA name insights count days, weeks and hours in; absent until set (UTC). */
  time_zone?: string;
}

export interface ApiKey {
  id: string;
  key_prefix: string;
  /** What the key is for, as named when it was created; null: no label. */
  label: string | null;
  plan: string;
  /** The effective limit (the plan's, or the key's own). */
  rate_limit_per_minute: number;
  allowed_origins: string[];
  allowed_bundle_ids: string[];
  created_at: string;
}

/** Only the create response carries the key's value. */
export interface CreatedKey extends ApiKey {
  key: string;
}

/** A stored event as the recent-events listing returns it; every value is shown as text. */
export interface StoredEvent {
  event_id: string | null;
  dedupe_key?: string;
  name: string;
  user_id: string;
  sent_user_id?: string | null;
  timestamp: string;
  received_at?: string;
  properties?: unknown;
  [field: string]: unknown;
}

/** One row of GET …/users: a user seen recently. */
export interface RecentUser {
  user_id: string;
  /** The IDs its events were sent with, the most recently seen first (at most 5). */
  ids: string[];
  id_count: number;
  events: number;
  last_seen: string;
  /** As the person's page gives them (null when no $identify sent it, or the identity group is not stored yet). */
  email: string | null;
  name: string | null;
  first_seen: string | null;
}

export interface User {
  user_id: string;
  ids: string[];
  email: string | null;
  name: string | null;
  first_seen: string;
}

/* Experiments and their results (docs/identity-and-experiments.md): the API returns the domain's own shapes. */
export type { Experiment, ExperimentStatus } from '../../lambdas/domain/experiment';
export type { SeriesPoint } from '../../lambdas/domain/results-series';
export type { Comparison, VariantStats } from '../../lambdas/domain/stats';

export type { LiftSummary, ResultsSummary } from '../../lambdas/domain/results-summary';
export type { BreakdownResult, SegmentResult } from '../../lambdas/domain/experiment-breakdowns';
export type { BreakdownDimension } from '../../lambdas/domain/breakdown-segments';

/** An experiment as GET …/experiments lists it: with its stored results at a glance, null until computed. */
export interface ExperimentListed extends Experiment {
  results_summary: ResultsSummary | null;
}

/** GET …/experiments/{id}/results. */
export interface Results extends ExperimentStats {
  experiment_id: string;
  status: ExperimentStatus;
  computed_at: string;
  window: { from: string; to: string };
  multiple_exposures: number;
  series: SeriesPoint[];
  /**
   * Every metric, the primary first under the goal event's name, then the secondary metrics and
   * guardrails (issue 22); absent from results computed before metrics existed.
   */
  metrics?: MetricResult[];
  /** Some guardrail moved in its bad direction significantly; absent with `metrics`. */
  guardrail_breached?: boolean;
  /**
   * The primary metric per platform, country and app version of each user's first enrollment event
   * (issue 22, docs/decisions/breakdowns.md): the top 5 values, "other", "unknown"; absent from
   * results computed before breakdowns existed.
   */
  breakdowns?: BreakdownResult[];
  /** The engine and the exact counting query it ran ("How this was computed"). */
  computation?: { engine: 'athena' | 'duckdb'; query: string };
  /**
   * A running experiment whose window the retention cut has reached or will within 14 days
   * (docs/api.md, "Retention notice"); absent otherwise.
   */
  retention_notice?: { kept_from: string; window_from: string; removes_day: string; removes_on: string; message: string };
}

/** An audit log entry (GET /admin/v1/audit). */
export type { AuditEntry } from '../../lambdas/domain/audit-entry';

/** A person's deletion as the API shows it (docs/api.md, "Deletions"): its state and, when done, its receipt. */
export type DeletionView = ReturnType<typeof import('../../lambdas/domain/deletion').deletionView>;
export type { ReceiptLine } from '../../lambdas/domain/deletion';

/** A person's export as the API shows it (docs/api.md, "Exports"): once done, with a download link signed when it was read. */
export type { ExportView } from '../../lambdas/domain/person-export';
