/**
 * The experiment form's planning calculator: how many users the experiment needs, and how long it must
 * run, to detect a relative change of a metric; or, asked the other way, the smallest change it can
 * detect if it runs a number of weeks with the project's traffic. It asks the admin API
 * (POST .../plan), which takes the baseline from the project's own recent events, prefilled with the
 * form's goal event, variants, weights and sequential switch; where the events give no baseline it
 * says so and takes one typed in. "Use as planned sample" puts the plan's total users into the form's
 * `planned_users`, saved with the experiment, which the results page shows progress toward. With CUPED
 * on, the API also measures the variance reduction CUPED would give from the project's history: the
 * answer states it and what it is worth, and the reduction field plans with it unless one is typed.
 * usePlannedUsers holds that field beside the form's own draft (as useMetricSettings does its fields).
 */
import { useLayoutEffect, useState } from 'preact/hooks';
import { cupedExpectedText } from '../../../lambdas/domain/cuped-worth';
import { PLANNING_METRIC_KINDS, type PlanningMetricKind } from '../../../lambdas/domain/planning-baseline';
import type { Experiment } from '../admin-types';
import { ApiError, type ApiClient } from '../api';
import { formatCount, formatPercent, formatPoints, formatRelative } from '../results/format-stats';
import { errorText } from './async-view';
import { Field } from './field';
import './planning-calculator.css';

/** The API's field this part of the form sends. */
export const PLANNING_FIELDS = ['planned_users'];

export interface PlannedUsers {
  value: number | null;
  set(value: number | null): void;
  dirty: boolean;
  body(): { planned_users: number | null };
}

export function usePlannedUsers(experiment: Experiment | undefined, onEdit: () => void): PlannedUsers {
  const saved = experiment?.planned_users ?? null;
  const [value, setValue] = useState<number | null>(saved);
  useLayoutEffect(() => setValue(saved), [experiment]);
  return {
    value,
    set: (next) => {
      setValue(next);
      onEdit();
    },
    dirty: value !== saved,
    body: () => ({ planned_users: value }),
  };
}

/** The plan as POST .../plan answers it (docs/api.md, "Plan an experiment"). */
export interface Plan {
  question: Question;
  /** The weeks asked about (detectable_effect); null for sample_size. */
  weeks: number | null;
  /** The relative change: as asked (sample_size), or the smallest detectable one (detectable_effect). */
  mde: number;
  mde_absolute: number;
  metric: { event: string; kind: PlanningMetricKind; property: string | null };
  baseline: {
    rate: number | null;
    mean: number;
    variance: number;
    users_per_day: number | null;
    source: 'events' | 'override';
    users_per_day_source: 'events' | 'override' | null;
    events: { lookback_days: number; active_users: number | null; days_observed: number | null } | null;
  };
  variants: Array<{ variant: string; weight: number | null; users: number }>;
  users_total: number;
  days: number | null;
  power: number;
  /** CUPED's expected variance reduction the plan assumed (0: none), and whose it is. */
  variance_reduction: number;
  variance_reduction_source: 'given' | 'measured' | 'none';
  /** The reduction measured from the project's history (null: CUPED off, or not measurable), and on how many users. */
  measured_variance_reduction: number | null;
  measured_variance_reduction_users: number | null;
  cuped: boolean;
}

/** sample_size: how many users for a change; detectable_effect: what change in a number of weeks. */
export type Question = 'sample_size' | 'detectable_effect';

interface Inputs {
  question: Question;
  /** Whole weeks the experiment can run (detectable_effect). */
  weeks: string;
  kind: PlanningMetricKind;
  /** Empty: the form's goal event. */
  event: string;
  property: string;
  mde: string;
  power: string;
  confidence: string;
  rate: string;
  mean: string;
  variance: string;
  usersPerDay: string;
  /** CUPED's expected variance reduction, in percent as typed; empty: none. */
  reduction: string;
}

const START: Inputs = {
  question: 'sample_size',
  weeks: '4',
  kind: 'conversion',
  event: '',
  property: '',
  mde: '5',
  power: '80',
  confidence: '95',
  rate: '',
  mean: '',
  variance: '',
  usersPerDay: '',
  reduction: '',
};

const KIND_LABELS: Record<PlanningMetricKind, string> = {
  conversion: 'Conversion: share of users who send the event',
  count: 'Count: events per user',
  sum: 'Sum of a property per user (e.g. revenue)',
};

const number = (text: string) => (text.trim() === '' ? undefined : Number(text.trim()));
const days = (n: number) => `${formatCount(n)} ${n === 1 ? 'day' : 'days'}`;

export interface PlanningCalculatorProps {
  api: ApiClient;
  projectId: string;
  goalEvent: string;
  variants: string[];
  /** The form's weights as numbers, or null for an equal split. */
  weights: number[] | null;
  sequential: boolean;
  /** The form's CUPED switch and window (undefined while the days are not valid: the API's default). */
  cuped: boolean;
  cupedLookbackDays: number | undefined;
  planned: PlannedUsers;
}

export function PlanningCalculator({ api, projectId, goalEvent, variants, weights, sequential, cuped, cupedLookbackDays, planned }: PlanningCalculatorProps) {
  const [inputs, setInputs] = useState<Inputs>(START);
  const [plan, setPlan] = useState<Plan | null>(null);
  // The last measured reduction: the reduction field's placeholder, what an empty field plans with.
  const [measured, setMeasured] = useState<number | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [override, setOverride] = useState(false);
  const set = (patch: Partial<Inputs>) => {
    setInputs({ ...inputs, ...patch });
    setPlan(null);
  };
  const event = inputs.event.trim() || goalEvent;

  async function calculate() {
    setBusy(true);
    setError(null);
    setPlan(null);
    const baseline = override
      ? Object.fromEntries(
          Object.entries(
            inputs.kind === 'conversion'
              ? { rate: number(inputs.rate) === undefined ? undefined : number(inputs.rate)! / 100, users_per_day: number(inputs.usersPerDay) }
              : { mean: number(inputs.mean), variance: number(inputs.variance), users_per_day: number(inputs.usersPerDay) },
          ).filter(([, v]) => v !== undefined),
        )
      : undefined;
    try {
      const answer = await api.post<Plan>(`/admin/v1/projects/${encodeURIComponent(projectId)}/plan`, {
        metric: { event, kind: inputs.kind, ...(inputs.kind === 'sum' ? { property: inputs.property.trim() } : {}) },
        ...(inputs.question === 'sample_size' ? { mde: Number(inputs.mde) / 100 } : { weeks: Number(inputs.weeks) }),
        power: Number(inputs.power) / 100,
        alpha: 1 - Number(inputs.confidence) / 100,
        variants,
        weights,
        sequential,
        cuped,
        ...(cuped && cupedLookbackDays !== undefined ? { cuped_lookback_days: cupedLookbackDays } : {}),
        ...(number(inputs.reduction) === undefined ? {} : { variance_reduction: number(inputs.reduction)! / 100 }),
        ...(baseline && Object.keys(baseline).length ? { baseline } : {}),
      });
      setPlan(answer);
      setMeasured(answer.measured_variance_reduction);
    } catch (err) {
      const apiError = err instanceof ApiError ? err : new ApiError(0, errorText(err));
      setError(apiError);
      // No baseline in the events: the way on is to type one.
      if (apiError.status === 422 && /baseline/.test(apiError.message)) setOverride(true);
    } finally {
      setBusy(false);
    }
  }

  return (
    <fieldset
      class="field planning-field"
      aria-describedby="planning-hint"
      onKeyDown={(e) => {
        // The calculator sits inside the experiment form: Enter in one of its fields calculates
        // instead of submitting (saving) the experiment.
        const target = e.target as HTMLInputElement;
        if (e.key !== 'Enter' || target.tagName !== 'INPUT' || target.type === 'checkbox') return;
        e.preventDefault();
        if (!busy && event !== '') void calculate();
      }}
    >
      <legend>Planning: how many users, how long</legend>
      <p class="hint" id="planning-hint">
        How many users the experiment needs to detect a change of the size you care about, or the smallest change it can detect in the weeks it can run, from
        what your project's events of the last 14 days say about the metric and the traffic, with this form's variants, split and analysis settings.
      </p>
      <div class="planning-question" role="radiogroup" aria-label="Question">
        <label class="check">
          <input
            type="radio"
            name="plan_question"
            value="sample_size"
            checked={inputs.question === 'sample_size'}
            onChange={() => set({ question: 'sample_size' })}
          />{' '}
          How many users to detect a change
        </label>
        <label class="check">
          <input
            type="radio"
            name="plan_question"
            value="detectable_effect"
            checked={inputs.question === 'detectable_effect'}
            onChange={() => set({ question: 'detectable_effect' })}
          />{' '}
          What change I could detect in a number of weeks
        </label>
      </div>
      <div class="planning-grid">
        <Field id="plan-kind" label="Metric">
          <select name="plan_kind" value={inputs.kind} onChange={(e) => set({ kind: e.currentTarget.value as PlanningMetricKind })}>
            {PLANNING_METRIC_KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </select>
        </Field>
        <Field id="plan-event" label="Event" hint={`Empty: the goal event${goalEvent ? ` (${goalEvent})` : ''}.`}>
          <input
            type="text"
            name="plan_event"
            autoComplete="off"
            list="recent-event-names"
            placeholder={goalEvent}
            value={inputs.event}
            onInput={(e) => set({ event: e.currentTarget.value })}
          />
        </Field>
        {inputs.kind === 'sum' && (
          <Field id="plan-property" label="Property to sum">
            <input type="text" name="plan_property" autoComplete="off" value={inputs.property} onInput={(e) => set({ property: e.currentTarget.value })} />
          </Field>
        )}
        {inputs.question === 'sample_size' ? (
          <Field id="plan-mde" label="Smallest change to detect (%)" hint="Relative: 5 means +5% of today's value.">
            <input type="text" inputMode="decimal" name="plan_mde" size={5} value={inputs.mde} onInput={(e) => set({ mde: e.currentTarget.value })} />
          </Field>
        ) : (
          <Field id="plan-weeks" label="Weeks it can run" hint="Whole weeks, 1 to 52, at the project's traffic.">
            <input type="text" inputMode="numeric" name="plan_weeks" size={4} value={inputs.weeks} onInput={(e) => set({ weeks: e.currentTarget.value })} />
          </Field>
        )}
        <Field id="plan-power" label="Power (%)" hint="The chance to detect it if it is there.">
          <input type="text" inputMode="decimal" name="plan_power" size={5} value={inputs.power} onInput={(e) => set({ power: e.currentTarget.value })} />
        </Field>
        <Field id="plan-confidence" label="Confidence (%)" hint="95 means α = 0.05.">
          <input
            type="text"
            inputMode="decimal"
            name="plan_confidence"
            size={5}
            value={inputs.confidence}
            onInput={(e) => set({ confidence: e.currentTarget.value })}
          />
        </Field>
        <Field
          id="plan-reduction"
          label="CUPED variance reduction (%)"
          hint={
            cuped
              ? 'Empty: measured from your events (shown after Calculate). Type your own, e.g. from a past experiment’s results, to plan with it instead.'
              : 'CUPED is off for this experiment: empty means none.'
          }
        >
          <input
            type="text"
            inputMode="decimal"
            name="plan_variance_reduction"
            size={5}
            placeholder={cuped && measured !== null ? `${Math.round(measured * 100)} (measured)` : ''}
            value={inputs.reduction}
            onInput={(e) => set({ reduction: e.currentTarget.value })}
          />
        </Field>
      </div>
      <label class="check">
        <input type="checkbox" name="plan_override" checked={override} onChange={(e) => setOverride(e.currentTarget.checked)} /> Type the baseline instead of
        measuring it (a new project without events)
      </label>
      {override && (
        <div class="planning-grid">
          {inputs.kind === 'conversion' ? (
            <Field id="plan-rate" label="Conversion today (%)">
              <input type="text" inputMode="decimal" name="plan_rate" size={6} value={inputs.rate} onInput={(e) => set({ rate: e.currentTarget.value })} />
            </Field>
          ) : (
            <>
              <Field id="plan-mean" label="Mean per user">
                <input type="text" inputMode="decimal" name="plan_mean" size={8} value={inputs.mean} onInput={(e) => set({ mean: e.currentTarget.value })} />
              </Field>
              <Field id="plan-variance" label="Variance per user">
                <input
                  type="text"
                  inputMode="decimal"
                  name="plan_variance"
                  size={8}
                  value={inputs.variance}
                  onInput={(e) => set({ variance: e.currentTarget.value })}
                />
              </Field>
            </>
          )}
          <Field id="plan-users-per-day" label="Users per day" hint="Empty: from the events.">
            <input
              type="text"
              inputMode="decimal"
              name="plan_users_per_day"
              size={8}
              value={inputs.usersPerDay}
              onInput={(e) => set({ usersPerDay: e.currentTarget.value })}
            />
          </Field>
        </div>
      )}
      <div class="toolbar">
        <button type="button" class="secondary" disabled={busy || event === ''} onClick={() => void calculate()}>
          {busy ? 'Calculating…' : 'Calculate'}
        </button>
        {event === '' && <span class="hint">Give a goal event (or an event here) first.</span>}
      </div>
      {error && (
        <p class="field-error planning-error" role="alert">
          {error.message}
        </p>
      )}
      {plan && <PlanAnswer plan={plan} planned={planned} />}
      <p class="planned-users" role="status">
        {planned.value === null ? (
          'No planned sample: the results page shows progress toward one once it is set.'
        ) : (
          <>
            Planned sample: <strong>{formatCount(planned.value)} users</strong>{' '}
            <button type="button" class="secondary small" onClick={() => planned.set(null)}>
              Clear
            </button>
          </>
        )}
      </p>
    </fieldset>
  );
}

function PlanAnswer({ plan, planned }: { plan: Plan; planned: PlannedUsers }) {
  const b = plan.baseline;
  const measured = b.events;
  const today =
    plan.metric.kind === 'conversion'
      ? `${formatPercent(b.rate)} of users send ${plan.metric.event}`
      : `${trim(b.mean)} per user (variance ${trim(b.variance)})`;
  const source =
    b.source === 'events' && measured
      ? ` (${formatCount(measured.active_users ?? 0)} active users in the last ${days(measured.lookback_days)})`
      : ' (as typed)';
  return (
    <div class="plan-answer" aria-live="polite">
      <p>
        Today: {today}
        {source}
        {b.users_per_day !== null && (
          <>
            ; about {trim(b.users_per_day)} users a day{b.users_per_day_source === 'override' ? ' (as typed)' : ''}
          </>
        )}
        .
      </p>
      {plan.cuped && measured && <MeasuredReduction plan={plan} lookbackDays={measured.lookback_days} />}
      {plan.question === 'detectable_effect' ? (
        <p class="plan-total">
          In {plan.weeks} {plan.weeks === 1 ? 'week' : 'weeks'} ({days(plan.days ?? 0)}), about <strong>{formatCount(plan.users_total)} users</strong> (
          {plan.variants.map((v) => `${v.variant} ${formatCount(v.users)}`).join(', ')}) can detect a change of <strong>{formatRelative(plan.mde)}</strong> or
          more (
          {plan.metric.kind === 'conversion'
            ? `${formatPoints(plan.mde_absolute)}: from ${formatPercent(b.rate)} to ${formatPercent((b.rate ?? 0) * (1 + plan.mde))}`
            : `${signedTrim(plan.mde_absolute)} per user`}
          ), with {formatPercent(plan.power)} power.
          {plan.variance_reduction > 0 && ` With CUPED removing ${trim(plan.variance_reduction * 100)}% of the variance.`}
        </p>
      ) : (
        <p class="plan-total">
          Needs <strong>{formatCount(plan.users_total)} users</strong> ({plan.variants.map((v) => `${v.variant} ${formatCount(v.users)}`).join(', ')})
          {plan.days !== null ? (
            <>
              : about <strong>{days(plan.days)}</strong> at that rate.
            </>
          ) : (
            '; give users per day for the run time.'
          )}
          {plan.variance_reduction > 0 && ` With CUPED removing ${trim(plan.variance_reduction * 100)}% of the variance.`}
        </p>
      )}
      <button type="button" class="secondary" onClick={() => planned.set(plan.users_total)} disabled={planned.value === plan.users_total}>
        Use as planned sample ({formatCount(plan.users_total)} users)
      </button>
    </div>
  );
}

/** What the project's history says CUPED would remove, and whether the plan uses it. */
function MeasuredReduction({ plan, lookbackDays }: { plan: Plan; lookbackDays: number }) {
  const expected = cupedExpectedText(plan.measured_variance_reduction);
  if (expected === null) {
    return (
      <p class="plan-cuped">
        CUPED's reduction could not be measured from your last {days(lookbackDays)} (it needs at least 100 active users, some with events before them).
      </p>
    );
  }
  return (
    <p class="plan-cuped">
      Measured from your last {days(lookbackDays)}: {expected}
      {plan.measured_variance_reduction_users !== null && `, over ${formatCount(plan.measured_variance_reduction_users)} users`}.
      {plan.variance_reduction_source === 'given' ? ' The plan uses the reduction you typed instead.' : ' The plan uses it.'}
    </p>
  );
}

/** A change in the metric's unit, signed: "+0.21". */
const signedTrim = (n: number) => `${n < 0 ? '\u2212' : '+'}${trim(Math.abs(n))}`;

/** A figure to 3 significant digits, at most 2 decimals, thousands grouped. */
function trim(n: number): string {
  return Number(n.toPrecision(3)).toLocaleString('en-US', { maximumFractionDigits: 2 });
}
