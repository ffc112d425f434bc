import type { BreakdownResult } from '../domain/experiment-breakdowns';
import type { MetricResult } from '../domain/metric-results';
import type { SeriesPoint } from '../domain/results-series';
import type { Comparison, Srm, VariantStats } from '../domain/stats';
import type { Computation } from './results-query';

/** Computed results of an experiment, as GET .../results returns them. */
export interface ExperimentResults {
  experiment_id: string;
  status: string;
  computed_at: string;
  window: { from: string; to: string };
  variants: VariantStats[];
  comparisons: Comparison[];
  srm: Srm;
  multiple_exposures: number;
  /** One point per UTC day of the run, cumulative (domain/results-series.ts); the last is the totals. */
  series: SeriesPoint[];
  /**
   * Every metric (issue 22; domain/experiment-metric-results.ts): the primary metric first (a
   * `conversion` named after the goal event, from the counts above), then the experiment's metrics
   * in its order; guardrails with `breached`. Absent for results computed before metrics existed.
   */
  metrics?: MetricResult[];
  /** Some guardrail metric is breached (its bad direction significant). Absent with `metrics`. */
  guardrail_breached?: boolean;
  /**
   * Breakdowns (docs/decisions/breakdowns.md; domain/experiment-breakdowns.ts): per dimension the
   * primary metric in each segment (top values, "other", "unknown"). Absent for results computed
   * before breakdowns existed.
   */
  breakdowns?: BreakdownResult[];
  /**
   * The engine and the full-recompute query text for this window (ResultsQuery.describe), stored with
   * the numbers it reproduces, so reading results needs no query engine. Absent for results computed
   * before it existed, or by an engine without one query text.
   */
  computation?: Computation;
  /**
   * What the computation did to the experiment's incremental state (docs/identity-and-experiments.md,
   * "Incremental computation"): the committed watermark after it, whether it committed a slice, and
   * whether it counted from raw instead. Absent for an engine without a state.
   */
  incremental?: { watermark: string; committed: boolean; full_recompute: boolean };
}

export interface ResultsStore {
  put(projectId: string, results: ExperimentResults): Promise<void>;
  get(projectId: string, experimentId: string): Promise<ExperimentResults | undefined>;
}
