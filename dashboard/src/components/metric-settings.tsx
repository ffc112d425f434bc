/**
 * The experiment form's metric settings (issue 22): metrics beyond the goal (add and remove up to
 * MAX_EXPERIMENT_METRICS; name, kind, event, the property a sum adds up, role, a guardrail's bad
 * direction, an optional cap), the sequential switch, the correction and CUPED (on by default, with its
 * pre-exposure window in days; docs/decisions/cuped.md). useMetricSettings holds the
 * draft beside the form's own; the form spreads `body()` into what it sends, counts `dirty`, asks
 * `check()` before sending and shows the API's refusal of these fields here (ApiError.forField).
 */
import { useLayoutEffect, useState } from 'preact/hooks';
import {
  CUPED_LOOKBACK_BOUNDS,
  DEFAULT_CORRECTION,
  DEFAULT_CUPED,
  DEFAULT_CUPED_LOOKBACK_DAYS,
  DEFAULT_SEQUENTIAL,
  cupedLookbackDays,
  draftMetric,
  EMPTY_METRIC,
  MAX_EXPERIMENT_METRICS,
  metricDraft,
  metricDraftProblems,
  type MetricDraft,
  type MetricDraftField,
} from '../../../lambdas/domain/experiment-metric-fields';
import type { ExperimentMetric } from '../../../lambdas/domain/experiment-metric';
import type { Correction } from '../../../lambdas/domain/p-value-correction';
import type { Experiment } from '../admin-types';
import type { ApiError } from '../api';
import { Field } from './field';
import './metric-settings.css';

/** The API's fields this part of the form sends (an error about them is shown here, not at the top). */
export const METRIC_SETTINGS_FIELDS = ['metrics', 'sequential', 'correction', 'cuped', 'cuped_lookback_days'];

export interface MetricSettingsDraft {
  metrics: MetricDraft[];
  sequential: boolean;
  correction: Correction | null;
  cuped: boolean;
  /** As typed. */
  cupedDays: string;
}

export interface MetricSettingsBody {
  metrics: ExperimentMetric[];
  sequential: boolean;
  correction: Correction | null;
  cuped: boolean;
  cuped_lookback_days: number;
}

function draftOf(experiment: Experiment | undefined): MetricSettingsDraft {
  return {
    metrics: (experiment?.metrics ?? []).map(metricDraft),
    sequential: experiment?.sequential ?? DEFAULT_SEQUENTIAL,
    correction: experiment?.correction === undefined ? DEFAULT_CORRECTION : experiment.correction,
    cuped: experiment?.cuped ?? DEFAULT_CUPED,
    cupedDays: String(experiment?.cuped_lookback_days ?? DEFAULT_CUPED_LOOKBACK_DAYS),
  };
}

const bodyOf = (d: MetricSettingsDraft): MetricSettingsBody => ({
  metrics: d.metrics.map(draftMetric),
  sequential: d.sequential,
  correction: d.correction,
  cuped: d.cuped,
  cuped_lookback_days: Number(d.cupedDays.trim()),
});

/** What is wrong with the typed window, in words; undefined when it is a whole number of days in bounds. */
function cupedDaysProblem(d: MetricSettingsDraft): string | undefined {
  const days = Number(d.cupedDays.trim());
  if (d.cupedDays.trim() !== '' && Number.isInteger(days) && days >= CUPED_LOOKBACK_BOUNDS.min && days <= CUPED_LOOKBACK_BOUNDS.max) return undefined;
  return `Enter a whole number of days from ${CUPED_LOOKBACK_BOUNDS.min} to ${CUPED_LOOKBACK_BOUNDS.max} (${DEFAULT_CUPED_LOOKBACK_DAYS} is the default).`;
}

export interface MetricSettings {
  draft: MetricSettingsDraft;
  change(next: MetricSettingsDraft): void;
  /** Differs from the experiment as loaded. */
  dirty: boolean;
  body(): MetricSettingsBody;
  /** Shows what must change before sending (per metric and field); true when nothing. */
  check(goalEvent: string): boolean;
  problems: Record<number, Partial<Record<MetricDraftField, string>>>;
  /** What is wrong with the CUPED window as typed, once a Save has been refused. */
  cupedDaysProblem?: string;
}

/** The settings' draft, following the experiment as loaded or saved (as the form's own draft does). */
export function useMetricSettings(experiment: Experiment | undefined, goalEvent: string, onEdit: () => void): MetricSettings {
  const [draft, setDraft] = useState<MetricSettingsDraft>(() => draftOf(experiment));
  const [checked, setChecked] = useState(false);
  useLayoutEffect(() => {
    setDraft(draftOf(experiment));
    setChecked(false);
  }, [experiment]);
  // Once a Save has been refused, the problems follow the draft as it is fixed.
  const problems = checked ? metricDraftProblems(goalEvent, draft.metrics) : {};
  return {
    draft,
    change: (next) => {
      setDraft(next);
      onEdit();
    },
    dirty: JSON.stringify(bodyOf(draft)) !== JSON.stringify(bodyOf(draftOf(experiment))),
    body: () => bodyOf(draft),
    check: (goal) => {
      setChecked(true);
      return Object.keys(metricDraftProblems(goal, draft.metrics)).length === 0 && cupedDaysProblem(draft) === undefined;
    },
    problems,
    ...(checked && cupedDaysProblem(draft) ? { cupedDaysProblem: cupedDaysProblem(draft) } : {}),
  };
}

const KINDS: { value: MetricDraft['kind']; label: string }[] = [
  { value: 'conversion', label: 'Conversion: share of users who sent the event' },
  { value: 'count', label: 'Count: events per user' },
  { value: 'sum', label: 'Sum of a property per user (e.g. revenue)' },
];

export function MetricSettingsFields({ settings, error, eventList }: { settings: MetricSettings; error: ApiError | null; eventList: string }) {
  const { draft, change, problems } = settings;
  const setMetric = (i: number, patch: Partial<MetricDraft>) => change({ ...draft, metrics: draft.metrics.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  const metricsError = error?.forField('metrics');
  const full = draft.metrics.length >= MAX_EXPERIMENT_METRICS;
  return (
    <>
      <fieldset
        class={metricsError ? 'field metrics-field field-invalid' : 'field metrics-field'}
        aria-describedby={metricsError ? 'metrics-error' : undefined}
      >
        <legend>Other metrics (optional)</legend>
        <p class="hint" id="metrics-hint">
          The goal event is the primary metric, which the verdict follows. Add up to {MAX_EXPERIMENT_METRICS} more: secondary metrics to learn from, and
          guardrails that must not get worse (the results page warns when one does).
        </p>
        <ol class="metric-list">
          {draft.metrics.map((m, i) => {
            const p = problems[i] ?? {};
            const id = (field: string) => `metric-${i}-${field}`;
            return (
              <li key={i} class="metric-item">
                <fieldset class="metric-fields">
                  <legend>Metric {i + 1}</legend>
                  <Field id={id('name')} label="Name" error={p.name}>
                    <input type="text" name={id('name')} autoComplete="off" value={m.name} onInput={(e) => setMetric(i, { name: e.currentTarget.value })} />
                  </Field>
                  <Field id={id('kind')} label="What it measures" error={undefined}>
                    <select name={id('kind')} value={m.kind} onChange={(e) => setMetric(i, { kind: e.currentTarget.value as MetricDraft['kind'] })}>
                      {KINDS.map((k) => (
                        <option key={k.value} value={k.value}>
                          {k.label}
                        </option>
                      ))}
                    </select>
                  </Field>
                  <Field id={id('event')} label="Event" error={p.event}>
                    <input
                      type="text"
                      name={id('event')}
                      autoComplete="off"
                      list={eventList}
                      value={m.event}
                      onInput={(e) => setMetric(i, { event: e.currentTarget.value })}
                    />
                  </Field>
                  {m.kind === 'sum' && (
                    <Field
                      id={id('property')}
                      label="Property to sum"
                      hint="A numeric event property, e.g. amount; events without it count 0."
                      error={p.property}
                    >
                      <input
                        type="text"
                        name={id('property')}
                        autoComplete="off"
                        value={m.property}
                        onInput={(e) => setMetric(i, { property: e.currentTarget.value })}
                      />
                    </Field>
                  )}
                  <Field id={id('role')} label="Role">
                    <select name={id('role')} value={m.role} onChange={(e) => setMetric(i, { role: e.currentTarget.value as MetricDraft['role'] })}>
                      <option value="secondary">Secondary: reported beside the goal</option>
                      <option value="guardrail">Guardrail: warn when it gets worse</option>
                    </select>
                  </Field>
                  {m.role === 'guardrail' && (
                    <Field id={id('direction')} label="Worse when it">
                      <select
                        name={id('direction')}
                        value={m.direction}
                        onChange={(e) => setMetric(i, { direction: e.currentTarget.value as MetricDraft['direction'] })}
                      >
                        <option value="increase">increases (e.g. errors)</option>
                        <option value="decrease">decreases (e.g. revenue)</option>
                      </select>
                    </Field>
                  )}
                  <Field id={id('cap')} label="Cap (optional)" hint="Caps each user's value at this percentile of all users' values, e.g. 0.99." error={p.cap}>
                    <input
                      type="text"
                      inputMode="decimal"
                      name={id('cap')}
                      autoComplete="off"
                      size={6}
                      value={m.cap}
                      onInput={(e) => setMetric(i, { cap: e.currentTarget.value })}
                    />
                  </Field>
                  <button
                    type="button"
                    class="secondary small"
                    aria-label={`Remove metric ${i + 1}${m.name.trim() ? ` (${m.name.trim()})` : ''}`}
                    onClick={() => change({ ...draft, metrics: draft.metrics.filter((_, j) => j !== i) })}
                  >
                    Remove
                  </button>
                </fieldset>
              </li>
            );
          })}
        </ol>
        <button
          type="button"
          class="secondary"
          disabled={full}
          aria-describedby={full ? 'metrics-full' : undefined}
          onClick={() => change({ ...draft, metrics: [...draft.metrics, { ...EMPTY_METRIC }] })}
        >
          Add metric
        </button>
        {full && (
          <p class="hint" id="metrics-full">
            An experiment has at most {MAX_EXPERIMENT_METRICS} metrics besides the goal.
          </p>
        )}
        {metricsError && (
          <p class="field-error" id="metrics-error">
            {metricsError}
          </p>
        )}
      </fieldset>
      <fieldset class="field analysis-field">
        <legend>Analysis</legend>
        <label class="check">
          <input type="checkbox" name="sequential" checked={draft.sequential} onChange={(e) => change({ ...draft, sequential: e.currentTarget.checked })} />{' '}
          Sequential testing
        </label>
        <p class="hint">
          On (recommended): intervals and p-values stay valid however often you look, so checking the results while the experiment runs does not make false wins
          likelier. Off: a fixed-horizon test, valid only when read once at the planned end.
        </p>
        {error?.forField('sequential') && <p class="field-error">{error.forField('sequential')}</p>}
        <Field
          id="experiment-correction"
          label="Correction for many comparisons"
          hint="Adjusts the p-values of every variant on the goal and the secondary metrics together; guardrails are never adjusted."
          error={error?.forField('correction')}
        >
          <select
            name="correction"
            value={draft.correction ?? 'none'}
            onChange={(e) => change({ ...draft, correction: e.currentTarget.value === 'none' ? null : (e.currentTarget.value as Correction) })}
          >
            <option value="holm">Holm: any false win at most 5% of the time (default)</option>
            <option value="benjamini-hochberg">Benjamini–Hochberg: at most 5% of the wins false</option>
            <option value="none">None: raw p-values</option>
          </select>
        </Field>
        <label class="check">
          <input type="checkbox" name="cuped" checked={draft.cuped} onChange={(e) => change({ ...draft, cuped: e.currentTarget.checked })} /> CUPED variance
          reduction
        </label>
        <p class="hint">
          On (recommended): each metric is adjusted by every user’s own value of it before their first exposure, which narrows the intervals by what a user’s
          past explains, without biasing the result. Users without earlier events simply count 0.
        </p>
        {error?.forField('cuped') && <p class="field-error">{error.forField('cuped')}</p>}
        {draft.cuped && (
          <Field
            id="experiment-cuped-days"
            label="Days of each user’s history before exposure"
            hint={`From ${CUPED_LOOKBACK_BOUNDS.min} to ${CUPED_LOOKBACK_BOUNDS.max}; ${DEFAULT_CUPED_LOOKBACK_DAYS} by default.`}
            error={settings.cupedDaysProblem ?? error?.forField('cuped_lookback_days')}
          >
            <input
              name="cuped_lookback_days"
              inputMode="numeric"
              value={draft.cupedDays}
              onInput={(e) => change({ ...draft, cupedDays: e.currentTarget.value })}
            />
          </Field>
        )}
      </fieldset>
    </>
  );
}

/** The started experiment's metric settings, read-only, as entries of its facts list. */
export function MetricSettingsFacts({ experiment }: { experiment: Experiment }) {
  const metrics = experiment.metrics ?? [];
  const correction = experiment.correction === undefined ? DEFAULT_CORRECTION : experiment.correction;
  return (
    <>
      {metrics.length > 0 && (
        <>
          <dt>Other metrics</dt>
          <dd>
            <ul class="plain-list metric-facts">
              {metrics.map((m) => (
                <li key={m.name}>
                  {m.name} ({describeMetric(m)})
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
      <dt>Analysis</dt>
      <dd>
        {(experiment.sequential ?? DEFAULT_SEQUENTIAL) ? 'Sequential testing' : 'Fixed-horizon testing'};{' '}
        {correction === null ? 'no correction' : `${correction === 'holm' ? 'Holm' : 'Benjamini–Hochberg'} correction`};{' '}
        {cupedLookbackDays(experiment) === undefined ? 'CUPED off' : `CUPED over ${cupedLookbackDays(experiment)} days before exposure`}
      </dd>
    </>
  );
}

function describeMetric(m: ExperimentMetric): string {
  const what =
    m.kind === 'conversion' ? `conversion to ${m.event}` : m.kind === 'count' ? `${m.event} per user` : `sum of ${m.property} of ${m.event} per user`;
  const role = m.role === 'guardrail' ? `guardrail, worse when it ${m.direction === 'increase' ? 'increases' : 'decreases'}` : 'secondary';
  return `${what}; ${role}${m.cap === undefined ? '' : `; capped at the ${m.cap} percentile`}`;
}
