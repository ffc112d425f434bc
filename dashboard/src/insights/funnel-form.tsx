/**
 * The funnels form (issue 25): one row per step (its event and an optional "where property equals
 * value" filter, behind a Filter button so a plain step stays one input wide at 375 px), Add step up to
 * 6 and Remove down to 2; the range, the window and the breakdown (with the property for "Event
 * property"). The API's message for a field is shown beside it, a step's by its path
 * (`steps.1.where.property` beside "Step 2 property"). Mount it with a `key` that changes when the
 * page's address does: its state starts from `initial`.
 */
import { useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { EventNameOptions } from '../components/recent-event-names';
import { Field } from '../components/field';
import { RangeFields } from './range-fields';
import {
  emptyStep,
  FUNNEL_BREAKDOWNS,
  fromFunnelDefinition,
  MAX_STEPS,
  MIN_STEPS,
  toFunnelDefinition,
  type FunnelBreakdown,
  type FunnelDefinition,
  type FunnelDraft,
  type StepDraft,
} from './funnel-draft';

const STEP_PARTS = [
  ['event', 'Event'],
  ['where.property', 'Property'],
  ['where.equals', 'Value'],
] as const;

/** Every field path the form shows an API message beside (for useInsightPage: the rest goes above the form). */
export const FUNNEL_FORM_FIELDS = [
  ...Array.from({ length: MAX_STEPS }, (_, i) => STEP_PARTS.map(([part]) => `steps.${i}.${part}`)).flat(),
  'range',
  'date_from',
  'date_to',
  'conversion_window_days',
  'breakdown',
  'breakdown_property',
];

export interface FunnelFormProps {
  initial: unknown;
  apiError: ApiError | undefined;
  busy: boolean;
  onRun: (definition: FunnelDefinition) => void;
  /** Suggestions for the step event fields (components/recent-event-names.tsx). */
  eventNames: string[];
  /** Suggestions for the property fields (components/recent-event-names.tsx useRecentPropertyNames). */
  propertyNames?: string[];
}

export function FunnelForm({ initial, apiError, busy, onRun, eventNames, propertyNames = [] }: FunnelFormProps) {
  const [draft, setDraft] = useState<FunnelDraft>(() => fromFunnelDefinition(initial));
  const change = (next: Partial<FunnelDraft>) => setDraft({ ...draft, ...next });
  const changeStep = (i: number, next: Partial<StepDraft>) => change({ steps: draft.steps.map((s, j) => (j === i ? { ...s, ...next } : s)) });
  /** A step field's message, its leading API name ("where.property must not be empty") in the label's words. */
  const stepError = (i: number, part: (typeof STEP_PARTS)[number][0]) => {
    const message = apiError?.forField(`steps.${i}.${part}`);
    const words = STEP_PARTS.find(([p]) => p === part)![1];
    return message?.startsWith(`${part} `) ? `${words}${message.slice(part.length)}` : message;
  };

  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        onRun(toFunnelDefinition(draft));
      }}
    >
      <fieldset class="insight-form">
        <legend>Steps, in order</legend>
        {draft.steps.map((s, i) => {
          const n = i + 1;
          return (
            <div class="series-row funnel-step-row" key={i} data-step={n}>
              <Field id={`funnel-step-${i}-event`} label={`Step ${n} event`} error={stepError(i, 'event')}>
                <input
                  type="text"
                  autoComplete="off"
                  list="funnel-event-names"
                  value={s.event}
                  onInput={(e) => changeStep(i, { event: e.currentTarget.value })}
                />
              </Field>
              {s.filtered && (
                <>
                  <Field id={`funnel-step-${i}-property`} label={`Step ${n} property`} error={stepError(i, 'where.property')}>
                    <input
                      type="text"
                      autoComplete="off"
                      list="funnel-property-names"
                      value={s.property}
                      onInput={(e) => changeStep(i, { property: e.currentTarget.value })}
                    />
                  </Field>
                  <Field id={`funnel-step-${i}-equals`} label={`Step ${n} value`} error={stepError(i, 'where.equals')}>
                    <input type="text" autoComplete="off" value={s.equals} onInput={(e) => changeStep(i, { equals: e.currentTarget.value })} />
                  </Field>
                </>
              )}
              <div class="funnel-step-actions">
                {s.filtered ? (
                  <button type="button" class="secondary" onClick={() => changeStep(i, { filtered: false, property: '', equals: '' })}>
                    Remove step {n} filter
                  </button>
                ) : (
                  <button type="button" class="secondary" onClick={() => changeStep(i, { filtered: true })}>
                    Filter step {n}
                  </button>
                )}
                {draft.steps.length > MIN_STEPS && (
                  <button type="button" class="secondary" onClick={() => change({ steps: draft.steps.filter((_, j) => j !== i) })}>
                    Remove step {n}
                  </button>
                )}
              </div>
            </div>
          );
        })}
        <EventNameOptions id="funnel-event-names" names={eventNames} />
        <EventNameOptions id="funnel-property-names" names={propertyNames} />
        <button type="button" class="secondary" disabled={draft.steps.length >= MAX_STEPS} onClick={() => change({ steps: [...draft.steps, emptyStep()] })}>
          {draft.steps.length >= MAX_STEPS ? `Add step (at most ${MAX_STEPS})` : 'Add step'}
        </button>
      </fieldset>
      <fieldset class="insight-form">
        <legend>Range, window and breakdown</legend>
        <div class="insight-grid">
          <RangeFields idPrefix="funnel" value={draft} onChange={change} apiError={apiError} />
          <Field id="funnel-window" label="Window (days)" error={apiError?.forField('conversion_window_days')}>
            <input
              type="number"
              min={1}
              max={90}
              value={draft.conversion_window_days}
              onInput={(e) => change({ conversion_window_days: e.currentTarget.value })}
            />
          </Field>
          <Field id="funnel-breakdown" label="Breakdown" error={apiError?.forField('breakdown')}>
            <select value={draft.breakdown} onChange={(e) => change({ breakdown: e.currentTarget.value as FunnelBreakdown })}>
              {FUNNEL_BREAKDOWNS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </Field>
          {draft.breakdown === 'property' && (
            <Field id="funnel-breakdown-property" label="Property" hint="Of the first step's event" error={apiError?.forField('breakdown_property')}>
              <input
                type="text"
                autoComplete="off"
                list="funnel-property-names"
                value={draft.breakdown_property}
                onInput={(e) => change({ breakdown_property: e.currentTarget.value })}
              />
            </Field>
          )}
        </div>
      </fieldset>
      <div class="actions">
        <button type="submit" disabled={busy}>
          Show funnel
        </button>
      </div>
    </form>
  );
}
