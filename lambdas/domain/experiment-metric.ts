/**
 * An experiment's metrics beyond its goal (issue 22). The goal event stays the primary metric, a
 * `conversion` named after the goal event, as the specification defines it; an experiment may add up
 * to MAX_EXPERIMENT_METRICS more, each measured per enrolled user at or after enrollment within the run:
 * - `conversion`: 1 if the user sent `event`, else 0;
 * - `count`: the number of `event`s the user sent;
 * - `sum`: the sum of the numeric `property` of the user's `event`s (0 for events without a numeric value).
 * A `guardrail` also names its bad `direction`; `cap` winsorizes per-user values at that percentile of
 * the pooled per-user values (winsorization.ts).
 */
import type { GuardrailDirection } from './guardrail-breach';
import type { MetricKind } from './metric-moments';
import type { Correction } from './p-value-correction';

export const MAX_EXPERIMENT_METRICS = 10;

export type ExperimentMetricRole = 'secondary' | 'guardrail';

export interface ExperimentMetric {
  name: string;
  event: string;
  kind: MetricKind;
  /** `sum` only: the event property summed. */
  property?: string;
  role: ExperimentMetricRole;
  /** `guardrail` only: the direction that is bad. */
  direction?: GuardrailDirection;
  /** Optional percentile (0 < cap < 1) at which per-user values are capped. */
  cap?: number;
}

/** How an experiment's results are tested: its `sequential` switch and `correction` choice. */
export interface ExperimentAnalysis {
  /** Always-valid intervals and p-values (sequential-test.ts); DEFAULT_SEQUENTIAL when absent. */
  sequential: boolean;
  /** Multiple-testing correction across variants x non-guardrail metrics; null: none. */
  correction: Correction | null;
}
