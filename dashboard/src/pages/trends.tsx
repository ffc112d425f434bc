/**
 * Trends (issue 25): the definition form (events and how each is measured, interval, date range,
 * breakdown, comparison), the chart and the totals table, "How this was computed" with the exact
 * query. The definition is in the URL hash, so the page is shareable; the running query's ID too, so
 * it can be left while it runs and come back (insights/hash-state.ts, insights/use-insight-query.ts).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { EventNameOptions, useRecentEventNames, useRecentPropertyNames } from '../components/recent-event-names';
import { Field } from '../components/field';
import { InsightHowComputed } from '../insights/insight-how-computed';
import { InsightProgress } from '../insights/insight-progress';
import { InsightTitle, SaveInsight, useOpenedInsight } from '../insights/save-insight';
import { LinkProblem } from '../insights/link-problem';
import type { TrendsResult } from '../insights/insight-types';
import { readInsightHash, writeInsightHash } from '../insights/hash-state';
import { defaultRange, rangeOf, RangeFields } from '../insights/range-fields';
import type { RangeKind } from '../../../lambdas/domain/insights/relative-range';
import { TrendChart, TrendTotals } from '../insights/trend-chart';
import { useInsightQuery } from '../insights/use-insight-query';
import { ReadOnlyNote } from '../components/read-only-note';
import type { PageProps } from '../page';
import { pathOf } from '../router';
import '../results/results.css';
import '../insights/insights.css';

const MEASURES = [
  ['events', 'Number of events'],
  ['users', 'Number of users'],
  ['sum', 'Sum of a property'],
  ['average', 'Average of a property'],
] as const;
const INTERVALS = [
  ['hour', 'Hour'],
  ['day', 'Day'],
  ['week', 'Week (from Monday)'],
] as const;
const BREAKDOWNS = [
  ['', 'None'],
  ['platform', 'Platform'],
  ['country', 'Country'],
  ['app_version', 'App version'],
  ['property', 'An event property'],
] as const;
const MAX_SERIES = 5;

type Measure = (typeof MEASURES)[number][0];
interface SeriesDraft {
  event: string;
  measure: Measure;
  property: string;
}
interface TrendsDraft {
  series: SeriesDraft[];
  interval: (typeof INTERVALS)[number][0];
  range: RangeKind;
  date_from: string;
  date_to: string;
  breakdown: (typeof BREAKDOWNS)[number][0];
  breakdown_property: string;
  compare: boolean;
}

function emptyDraft(): TrendsDraft {
  return {
    series: [{ event: '', measure: 'events', property: '' }],
    interval: 'day',
    ...defaultRange(),
    breakdown: '',
    breakdown_property: '',
    compare: true,
  };
}

const needsProperty = (m: Measure) => m === 'sum' || m === 'average';

/** The request body: only the fields the draft's choices use. */
function toDefinition(d: TrendsDraft): Record<string, unknown> {
  return {
    series: d.series.map((s) => ({ event: s.event, measure: s.measure, ...(needsProperty(s.measure) && s.property !== '' ? { property: s.property } : {}) })),
    interval: d.interval,
    date_from: d.date_from,
    date_to: d.date_to,
    // Fixed dates send no range: the definition is as before ranges existed.
    ...(d.range !== 'custom' ? { range: d.range } : {}),
    ...(d.breakdown ? { breakdown: d.breakdown } : {}),
    ...(d.breakdown === 'property' ? { breakdown_property: d.breakdown_property } : {}),
    compare: d.compare,
  };
}

const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
const oneOf = <T extends string>(v: unknown, options: readonly (readonly [T, string])[], fallback: T): T =>
  options.some(([o]) => o === v) ? (v as T) : fallback;

/** A definition from a link, as a draft (anything unexpected falls back to the default). */
function fromDefinition(value: unknown): TrendsDraft {
  const d = emptyDraft();
  if (typeof value !== 'object' || value === null) return d;
  const v = value as Record<string, unknown>;
  const series = Array.isArray(v.series)
    ? v.series.slice(0, MAX_SERIES).map((s: Record<string, unknown>) => ({
        event: str(s?.event, ''),
        measure: oneOf(s?.measure, MEASURES, 'events'),
        property: str(s?.property, ''),
      }))
    : d.series;
  return {
    series: series.length ? series : d.series,
    interval: oneOf(v.interval, INTERVALS, d.interval),
    range: rangeOf(v),
    date_from: str(v.date_from, d.date_from),
    date_to: str(v.date_to, d.date_to),
    breakdown: oneOf(v.breakdown, BREAKDOWNS, ''),
    breakdown_property: str(v.breakdown_property, ''),
    compare: v.compare !== false,
  };
}

export function TrendsPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const opened = useOpenedInsight(api, projectId);
  const path = pathOf('projects', projectId, 'insights', 'trends');
  const initial = useMemo(() => readInsightHash(), []);
  const [draft, setDraft] = useState<TrendsDraft>(() => (initial.definition === undefined ? emptyDraft() : fromDefinition(initial.definition)));
  const [ran, setRan] = useState<Record<string, unknown> | undefined>(undefined);
  const names = useRecentEventNames(api, projectId);
  const propertyNames = useRecentPropertyNames(api, projectId);
  const [linkProblem, setLinkProblem] = useState<string | undefined>(initial.problem);
  const { state, start, resume, reset, canRun } = useInsightQuery<TrendsResult>(api, projectId, 'trends', (queryId) =>
    writeInsightHash(path, { definition: ran ?? toDefinition(draft), ...(queryId ? { queryId } : {}) }),
  );
  // Navigations to this page while it is open (a pasted link, back and forward): the page follows the
  // address. The page's own hash writes (replaceState) fire no hashchange.
  const [navigations, setNavigations] = useState(0);
  useEffect(() => {
    const onChange = () => setNavigations((n) => n + 1);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);

  // A link with a definition runs it; with a query ID too, it comes back to that query.
  useEffect(() => {
    const hash = navigations === 0 ? initial : readInsightHash();
    setLinkProblem(hash.problem);
    if (hash.definition === undefined) {
      if (navigations > 0) {
        setDraft(emptyDraft());
        setRan(undefined);
        reset();
      }
      return;
    }
    const shown = fromDefinition(hash.definition);
    const definition = toDefinition(shown);
    setDraft(shown);
    setRan(definition);
    if (hash.queryId) resume(hash.queryId, definition);
    else start(definition);
  }, [navigations]);

  function submit(e: Event) {
    e.preventDefault();
    const definition = toDefinition(draft);
    setRan(definition);
    writeInsightHash(path, { definition });
    start(definition);
  }

  const change = (next: Partial<TrendsDraft>) => setDraft({ ...draft, ...next });
  const changeSeries = (i: number, next: Partial<SeriesDraft>) => change({ series: draft.series.map((s, j) => (j === i ? { ...s, ...next } : s)) });
  const apiError = state.error instanceof ApiError ? state.error : undefined;
  const fieldError = (field: string) => apiError?.forField(field);
  const formError =
    state.phase === 'error'
      ? apiError
        ? (apiError.apartFrom([
            ...draft.series.flatMap((_, i) => ['event', 'measure', 'property'].map((f) => `series.${i}.${f}`)),
            'range',
            'date_from',
            'date_to',
            'interval',
            'breakdown',
            'breakdown_property',
          ]) ?? undefined)
        : String(state.error)
      : undefined;
  const answer = state.phase === 'done' ? state.answer : undefined;
  const result = answer?.result;

  return (
    <>
      <p class="breadcrumb">
        <a href={`#${pathOf('projects', projectId, 'insights')}`}>Insights</a>
      </p>
      <InsightTitle api={api} projectId={projectId} title="Trends" opened={opened} />
      <LinkProblem problem={linkProblem} />
      {!canRun && <ReadOnlyNote needed="analyst" what="run insights" />}
      <form onSubmit={submit} noValidate>
        <fieldset class="insight-form">
          <legend>Events</legend>
          {draft.series.map((s, i) => (
            <div class="series-row" key={i}>
              <Field id={`series-${i}-event`} label={`Event ${i + 1}`} error={fieldError(`series.${i}.event`)}>
                <input
                  type="text"
                  autoComplete="off"
                  list="trend-event-names"
                  value={s.event}
                  onInput={(e) => changeSeries(i, { event: e.currentTarget.value })}
                />
              </Field>
              <Field id={`series-${i}-measure`} label="Measured as" error={fieldError(`series.${i}.measure`)}>
                <select value={s.measure} onChange={(e) => changeSeries(i, { measure: e.currentTarget.value as Measure })}>
                  {MEASURES.map(([value, label]) => (
                    <option key={value} value={value}>
                      {label}
                    </option>
                  ))}
                </select>
              </Field>
              {needsProperty(s.measure) && (
                <Field id={`series-${i}-property`} label="Numeric property" error={fieldError(`series.${i}.property`)}>
                  <input
                    type="text"
                    autoComplete="off"
                    list="trend-property-names"
                    value={s.property}
                    onInput={(e) => changeSeries(i, { property: e.currentTarget.value })}
                  />
                </Field>
              )}
              {draft.series.length > 1 && (
                <button type="button" class="secondary" onClick={() => change({ series: draft.series.filter((_, j) => j !== i) })}>
                  Remove event {i + 1}
                </button>
              )}
            </div>
          ))}
          <EventNameOptions id="trend-event-names" names={names} />
          <EventNameOptions id="trend-property-names" names={propertyNames} />
          <button
            type="button"
            class="secondary"
            disabled={draft.series.length >= MAX_SERIES}
            onClick={() => change({ series: [...draft.series, { event: '', measure: 'events', property: '' }] })}
          >
            {draft.series.length >= MAX_SERIES ? `Add event (at most ${MAX_SERIES})` : 'Add event'}
          </button>
        </fieldset>
        <fieldset class="insight-form">
          <legend>Range and breakdown</legend>
          <div class="insight-grid">
            <RangeFields idPrefix="trend" value={draft} onChange={change} apiError={apiError} />
            <Field id="trend-interval" label="Per" error={fieldError('interval')}>
              <select value={draft.interval} onChange={(e) => change({ interval: e.currentTarget.value as TrendsDraft['interval'] })}>
                {INTERVALS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="trend-breakdown" label="Break down by" error={fieldError('breakdown')}>
              <select value={draft.breakdown} onChange={(e) => change({ breakdown: e.currentTarget.value as TrendsDraft['breakdown'] })}>
                {BREAKDOWNS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </Field>
            {draft.breakdown === 'property' && (
              <Field id="trend-breakdown-property" label="Property" error={fieldError('breakdown_property')}>
                <input
                  type="text"
                  autoComplete="off"
                  list="trend-property-names"
                  value={draft.breakdown_property}
                  onInput={(e) => change({ breakdown_property: e.currentTarget.value })}
                />
              </Field>
            )}
          </div>
          <label class="checkbox">
            <input type="checkbox" checked={draft.compare} onChange={(e) => change({ compare: e.currentTarget.checked })} /> Compare with the previous period
          </label>
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={state.phase === 'starting' || !canRun}>
            Show trends
          </button>
        </div>
      </form>
      {formError !== undefined && (
        <p class="error" role="alert">
          {formError}
        </p>
      )}
      <InsightProgress state={state} />
      {state.phase === 'idle' && canRun && (
        <p class="empty-state">Choose one or more events and press Show trends. The link of this page then shows the same trends.</p>
      )}
      {answer && result && (
        <>
          {result.lines.every((l) => l.total === 0 || l.total === null) && <p class="empty-state">No events in this range.</p>}
          <TrendChart result={result} timeZone={answer.time_zone ?? 'UTC'} />
          <TrendTotals result={result} />
          <SaveInsight api={api} projectId={projectId} kind="trends" definition={answer.definition} opened={opened} />
          <InsightHowComputed answer={answer}>
            <li>
              <strong>Buckets:</strong>{' '}
              {result.interval === 'week'
                ? `weeks start on Monday (${answer.time_zone ?? 'UTC'}); the first and last count only days in the range`
                : `${result.interval}s of ${answer.time_zone ?? 'UTC'}`}
              , by each event's own timestamp.
            </li>
            <li>
              <strong>Measures:</strong> events are counted; users are distinct per bucket, and over the whole range in the total; a sum or average reads a
              property that is a number (or text holding one) and skips the other events.
            </li>
            {result.breakdown && (
              <li>
                <strong>Breakdown:</strong> the 10 values with the most events in the range, the rest as “other”, events without a value as “unknown”.
              </li>
            )}
          </InsightHowComputed>
        </>
      )}
    </>
  );
}
