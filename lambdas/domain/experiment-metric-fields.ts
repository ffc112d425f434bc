/**
 * An experiment's metric settings as people fill them in (issue 22): `metrics` beyond the goal, the
 * `sequential` switch and the `correction` choice. Their limits, the rules across fields that the
 * admin API enforces with a 400 (lambdas/handlers/experiments-admin.ts) and, for the dashboard to say
 * before sending anything, what is wrong with a draft, in plain words. Pure.
 *
 * Rules across fields (metricsProblem):
 * - names are unique among the experiment's metrics, the primary one included: the primary metric is
 *   named after the goal event (as the results name it), so no metric may be called that;
 * - `property` is the summed property of a `sum` metric: required for `sum`, refused otherwise; any
 *   name the property-name rule accepts (property-name.ts: read literally, JSON-path syntax included);
 * - `direction` is a guardrail's bad direction: required for `guardrail`, refused otherwise.
 * Per field (the schema's): name like an experiment's, event like the goal event, cap within CAP_BOUNDS.
 */
import { EXPERIMENT_LIMITS } from './experiment-fields';
import { MAX_EXPERIMENT_METRICS, type ExperimentMetric, type ExperimentMetricRole } from './experiment-metric';
import type { GuardrailDirection } from './guardrail-breach';
import { DEFAULT_SEQUENTIAL } from './metric-comparison';
import type { MetricKind } from './metric-moments';
import type { Correction } from './p-value-correction';
import { PROPERTY_NAME_MAX_LENGTH, propertyNameProblem } from './property-name';

export { MAX_EXPERIMENT_METRICS } from './experiment-metric';

export const METRIC_LIMITS = {
  maxMetrics: MAX_EXPERIMENT_METRICS,
  nameLength: EXPERIMENT_LIMITS.nameLength,
  eventLength: EXPERIMENT_LIMITS.goalEventLength,
  /** A property name as events carry it (property-name.ts). */
  propertyLength: PROPERTY_NAME_MAX_LENGTH,
} as const;

export { DEFAULT_SEQUENTIAL };

/**
 * A metric's cap, the percentile of users' values above which they are capped: from the median to
 * 1 in 10,000 (docs/api.md "Bounds"). Below the median a cap replaces most users' values with one
 * threshold, which measures nothing; above 0.9999 it caps no one in any experiment smaller than
 * 10,000 users; and tiny numbers like 1e-200 are no percentile a person means (DynamoDB cannot even
 * store them).
 */
export const CAP_BOUNDS = { min: 0.5, max: 0.9999 } as const;
export const CAP_TEXT = `from ${CAP_BOUNDS.min} to ${CAP_BOUNDS.max} (a percentile such as 0.99)`;
export const isSensibleCap = (cap: number): boolean => Number.isFinite(cap) && cap >= CAP_BOUNDS.min && cap <= CAP_BOUNDS.max;

/**
 * Holm by default: with the goal and a few secondary metrics per variant, uncorrected p-values make a
 * false "win" likely (10 metrics at p < 0.05: 40%); Holm keeps the chance of any false win at 5% and
 * always rejects at least what Bonferroni does. Benjamini-Hochberg (more wins, 5% of them false) is a
 * choice a team makes on purpose (docs/decisions/experiment-metric-settings.md).
 */
export const DEFAULT_CORRECTION: Correction = 'holm';

/**
 * CUPED on by default (docs/decisions/cuped.md): it never biases the estimate (the covariate is
 * measured before exposure, so the variants' covariates have the same distribution) and only ever
 * narrows intervals by what the pre-exposure data explains.
 */
export const DEFAULT_CUPED = true;
/** GrowthBook's default pre-exposure window (14 days); 1 to 60 days. */
export const DEFAULT_CUPED_LOOKBACK_DAYS = 14;
export const CUPED_LOOKBACK_BOUNDS = { min: 1, max: 60 } as const;
export const CUPED_LOOKBACK_TEXT = `a whole number of days from ${CUPED_LOOKBACK_BOUNDS.min} to ${CUPED_LOOKBACK_BOUNDS.max} (default ${DEFAULT_CUPED_LOOKBACK_DAYS})`;

/** The pre-exposure window of an experiment's CUPED in days, or undefined when CUPED is off. */
export function cupedLookbackDays(experiment: { cuped?: boolean; cuped_lookback_days?: number }): number | undefined {
  if (!(experiment.cuped ?? DEFAULT_CUPED)) return undefined;
  return experiment.cuped_lookback_days ?? DEFAULT_CUPED_LOOKBACK_DAYS;
}

export const METRIC_ROLES: readonly ExperimentMetricRole[] = ['secondary', 'guardrail'];
export const GUARDRAIL_DIRECTIONS: readonly GuardrailDirection[] = ['increase', 'decrease'];

/** The rule a metric breaks, at `path` under `metrics` (e.g. "2.name"), or undefined. */
export interface MetricProblem {
  path: string;
  message: string;
}

/** The first rule across fields the metrics break, given the goal event that names the primary metric. */
export function metricsProblem(goalEvent: string, metrics: readonly ExperimentMetric[]): MetricProblem | undefined {
  const seen = new Map<string, number>();
  for (const [i, m] of metrics.entries()) {
    if (m.name === goalEvent) {
      return {
        path: `${i}.name`,
        message: `"${m.name}" names the primary metric (the goal event's conversion): give this metric another name`,
      };
    }
    const first = seen.get(m.name);
    if (first !== undefined) return { path: `${i}.name`, message: `metric names must be unique: "${m.name}" is also the name of metrics.${first}` };
    seen.set(m.name, i);
    if (m.kind === 'sum' && m.property === undefined) {
      return { path: `${i}.property`, message: 'a sum metric needs property: the name of the numeric event property to sum, e.g. "amount"' };
    }
    const propertyProblem = m.kind === 'sum' ? propertyNameProblem('property', m.property!) : undefined;
    if (propertyProblem) return { path: `${i}.property`, message: propertyProblem };
    if (m.kind !== 'sum' && m.property !== undefined) {
      return { path: `${i}.property`, message: `property is only for sum metrics: remove it, or set kind to "sum" (this metric's kind is ${m.kind})` };
    }
    if (m.role === 'guardrail' && m.direction === undefined) {
      return { path: `${i}.direction`, message: 'a guardrail needs direction: "increase" or "decrease", the change that is bad' };
    }
    if (m.role !== 'guardrail' && m.direction !== undefined) {
      return { path: `${i}.direction`, message: 'direction is only for guardrails: remove it, or set role to "guardrail"' };
    }
  }
  return undefined;
}

/** A metric as the form holds it: text as typed. */
export interface MetricDraft {
  name: string;
  event: string;
  kind: MetricKind;
  /** Used when kind is `sum`. */
  property: string;
  role: ExperimentMetricRole;
  /** Used when role is `guardrail`. */
  direction: GuardrailDirection;
  /** As typed; empty: no cap. */
  cap: string;
}

export const EMPTY_METRIC: MetricDraft = { name: '', event: '', kind: 'conversion', property: '', role: 'secondary', direction: 'decrease', cap: '' };

/** The draft as the API takes it: only the fields its kind and role use. */
export function draftMetric(d: MetricDraft): ExperimentMetric {
  const metric: ExperimentMetric = { name: d.name.trim(), event: d.event, kind: d.kind, role: d.role };
  if (d.kind === 'sum') metric.property = d.property;
  if (d.role === 'guardrail') metric.direction = d.direction;
  if (d.cap.trim() !== '') metric.cap = Number(d.cap.trim());
  return metric;
}

/** The metric as the form shows it. */
export function metricDraft(m: ExperimentMetric): MetricDraft {
  return {
    name: m.name,
    event: m.event,
    kind: m.kind,
    property: m.property ?? '',
    role: m.role,
    direction: m.direction ?? EMPTY_METRIC.direction,
    cap: m.cap === undefined ? '' : String(m.cap),
  };
}

export type MetricDraftField = 'name' | 'event' | 'property' | 'cap';

/**
 * What a person must change, per metric (by index) and field; empty when nothing. The goal event names
 * the primary metric, which the other metrics' names must differ from.
 */
export function metricDraftProblems(goalEvent: string, drafts: readonly MetricDraft[]): Record<number, Partial<Record<MetricDraftField, string>>> {
  const out: Record<number, Partial<Record<MetricDraftField, string>>> = {};
  const L = METRIC_LIMITS;
  const names = drafts.map((d) => d.name.trim());
  drafts.forEach((d, i) => {
    const p: Partial<Record<MetricDraftField, string>> = {};
    const name = names[i]!;
    if (!name) p.name = 'Give the metric a name, for example “Revenue”.';
    else if (name.length > L.nameLength) p.name = `Shorten the name to ${L.nameLength} characters or fewer (it has ${name.length}).`;
    else if (name === goalEvent) p.name = `“${name}” is the primary metric’s name (the goal event): choose another name.`;
    else if (names.indexOf(name) !== i) p.name = `Another metric is called “${name}”: give each metric its own name.`;
    if (!d.event.trim()) p.event = 'Choose the event this metric counts, for example “purchase”.';
    else if (d.event.length > L.eventLength) p.event = `Event names have at most ${L.eventLength} characters (this one has ${d.event.length}).`;
    if (d.kind === 'sum') {
      if (!d.property.trim()) p.property = 'Name the numeric property to sum, for example “amount”.';
      else if (d.property.length > L.propertyLength) p.property = `Property names have at most ${L.propertyLength} characters.`;
      else if (propertyNameProblem('The property name', d.property))
        p.property = 'Property names cannot contain a double quote, a backslash, U+0000 (NUL) or half of an emoji.';
    }
    if (d.cap.trim() !== '') {
      const cap = Number(d.cap.trim());
      if (!isSensibleCap(cap)) p.cap = `The cap is a percentile from ${CAP_BOUNDS.min} to ${CAP_BOUNDS.max}, for example 0.99; leave it empty for none.`;
    }
    if (Object.keys(p).length) out[i] = p;
  });
  return out;
}
