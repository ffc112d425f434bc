/** Experiments: names, states and transitions (spec "States and transitions"). */
import type { ExperimentMetric } from './experiment-metric';
import type { Correction } from './p-value-correction';
import { sdkSnakeCase } from './sdk-snake-case';

export const EXPERIMENT_STATUSES = ['created', 'running', 'stopped'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export const DEFAULT_VARIANTS = ['a', 'b'] as const;
export const EXPOSURE_EVENT = '$experiment_exposure';
export const SUPER_PROPERTY_PREFIX = '$experiment_';

export interface Experiment {
  id: string;
  project_id: string;
  name: string;
  /** Each variant once, the first the control. */
  variants: string[];
  /** Whole percentages in the order of variants, summing to 100; null: an equal split (domain/variant-weights.ts). */
  weights: number[] | null;
  goal_event: string;
  /** Metrics beyond the goal (issue 22, experiment-metric.ts); absent on experiments stored before them: none. */
  metrics?: ExperimentMetric[];
  /** Sequential testing switch; absent: DEFAULT_SEQUENTIAL (metric-comparison.ts). */
  sequential?: boolean;
  /** Multiple-testing correction; absent: none. */
  correction?: Correction | null;
  /**
   * CUPED variance reduction (docs/decisions/cuped.md): each metric adjusted by the user's own value of
   * it in the `cuped_lookback_days` before their first exposure. Absent (stored before CUPED): DEFAULT_CUPED.
   */
  cuped?: boolean;
  /** Days of pre-exposure data per user, CUPED_LOOKBACK_BOUNDS; absent: DEFAULT_CUPED_LOOKBACK_DAYS. */
  cuped_lookback_days?: number;
  /**
   * Users the experiment plans to enroll, all variants together (the planning calculator's users_total;
   * POST .../plan); the results page shows progress toward it. Null or absent: no plan.
   */
  planned_users?: number | null;
  description: string | null;
  status: ExperimentStatus;
  created_at: string;
  started_at: string | null;
  stopped_at: string | null;
}

/**
 * The one snake_case of Tally: camelCase boundaries and every run of characters other than ASCII
 * letters and digits become one underscore; lower case; no leading or trailing underscore.
 * "Checkout Flow", "checkout-flow" and "checkoutFlow" are all "checkout_flow". Experiment names
 * are unique by this form, because it names the `$experiment_<name>` super property.
 */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/**
 * Every spelling that names this experiment in an exposure's $experiment_name or in a
 * `$experiment_<spelling>` super property: the name as configured, Tally's snakeCase and the MGM
 * SDKs' snake_case (sdkSnakeCase). Distinct values, in that order. Names are unique under all of them.
 */
export function experimentNameSpellings(name: string): string[] {
  return [...new Set([name, snakeCase(name), sdkSnakeCase(name)])];
}

export type Transition = 'start' | 'stop';

/** The state table: which status each transition needs, and where it leads. */
export const TRANSITIONS: Record<Transition, { from: ExperimentStatus; to: ExperimentStatus }> = {
  start: { from: 'created', to: 'running' },
  stop: { from: 'running', to: 'stopped' },
};

export function transitionRefusal(transition: Transition, current: ExperimentStatus): string {
  const { from } = TRANSITIONS[transition];
  const finalNote = current === 'stopped' ? ' Stopped is final: create a new experiment for a new run.' : '';
  return `Cannot ${transition} an experiment whose status is ${current}; only a ${from} experiment can be ${transition === 'start' ? 'started' : 'stopped'}.${finalNote}`;
}

/**
 * The experiment spellings an event refers to, as sent: `$experiment_exposure`'s $experiment_name and
 * the <spelling> of each `$experiment_<spelling>` super property. An experiment is referred to when
 * one of them is among its experimentNameSpellings.
 */
export function referencedExperiments(name: string, properties: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (name === EXPOSURE_EVENT && typeof properties.$experiment_name === 'string') out.push(properties.$experiment_name);
  for (const key of Object.keys(properties)) {
    if (key.startsWith(SUPER_PROPERTY_PREFIX) && key !== '$experiment_name') out.push(key.slice(SUPER_PROPERTY_PREFIX.length));
  }
  return out;
}
