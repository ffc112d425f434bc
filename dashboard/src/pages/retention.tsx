/**
 * Retention (issue 25): start and return events, range and interval in a form; the retention curve and the cohort triangle,
 * with "How this was computed". The definition is in the URL hash (shareable), and a running query
 * can be left and come back to (insights/use-insight-page.ts).
 */
import { Field } from '../components/field';
import { EventNameOptions, useRecentEventNames } from '../components/recent-event-names';
import type { RetentionResult } from '../insights/funnel-types';
import { InsightHowComputed } from '../insights/insight-how-computed';
import { InsightProgress } from '../insights/insight-progress';
import { RetentionChart } from '../insights/retention-chart';
import { RetentionTable } from '../insights/retention-table';
import { InsightTitle, SaveInsight, useOpenedInsight } from '../insights/save-insight';
import { LinkProblem } from '../insights/link-problem';
import { useInsightPage } from '../insights/use-insight-page';
import { ReadOnlyNote } from '../components/read-only-note';
import { FormRangeFields, rangeOf } from '../insights/range-fields';
import { resolveRange, type RangeKind } from '../../../lambdas/domain/insights/relative-range';
import { today } from '../today';
import type { PageProps } from '../page';
import { pathOf } from '../router';
import '../insights/insights.css';

interface RetentionDefinition {
  start_event: string;
  return_event: string;
  interval: string;
  date_from: string;
  date_to: string;
  range?: RangeKind;
}

const FIELDS = ['start_event', 'return_event', 'interval', 'range', 'date_from', 'date_to'];

export function RetentionPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const opened = useOpenedInsight(api, projectId);
  const { state, run, initial, formKey, apiError, formError, answer, linkProblem, canRun } = useInsightPage<RetentionResult, RetentionDefinition>(
    api,
    projectId,
    'retention',
    FIELDS,
  );
  const result = answer?.result;
  const names = useRecentEventNames(api, projectId);
  return (
    <>
      <p class="breadcrumb">
        <a href={`#${pathOf('projects', projectId, 'insights')}`}>Insights</a>
      </p>
      <InsightTitle api={api} projectId={projectId} title="Retention" opened={opened} />
      <LinkProblem problem={linkProblem} />
      {!canRun && <ReadOnlyNote needed="analyst" what="run insights" />}
      <form
        key={formKey}
        class="insight-inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const text = (name: string) => String(f.get(name) ?? '').trim();
          run({
            start_event: text('start_event'),
            return_event: text('return_event'),
            interval: text('interval'),
            date_from: text('date_from'),
            date_to: text('date_to'),
            ...(text('range') !== 'custom' ? { range: text('range') as RangeKind } : {}),
          });
        }}
      >
        <Field id="retention-start" label="Start event" error={apiError?.forField('start_event')}>
          <input name="start_event" type="text" autoComplete="off" list="retention-event-names" defaultValue={initial?.start_event ?? ''} />
        </Field>
        <Field id="retention-return" label="Return event" error={apiError?.forField('return_event')}>
          <input name="return_event" type="text" autoComplete="off" list="retention-event-names" defaultValue={initial?.return_event ?? ''} />
        </Field>
        <EventNameOptions id="retention-event-names" names={names} />
        <Field id="retention-interval" label="By" error={apiError?.forField('interval')}>
          <select name="interval" defaultValue={initial?.interval ?? 'day'}>
            <option value="day">Day</option>
            <option value="week">Week</option>
          </select>
        </Field>
        <FormRangeFields
          idPrefix="retention"
          initial={
            initial
              ? { range: rangeOf(initial), date_from: initial.date_from ?? '', date_to: initial.date_to ?? '' }
              : { range: 'last_30_days', ...resolveRange('last_30_days', today()) }
          }
          apiError={apiError}
        />
        <button type="submit" disabled={state.phase === 'starting' || !canRun}>
          Show retention
        </button>
      </form>
      {formError !== undefined && (
        <p class="error" role="alert">
          {formError}
        </p>
      )}
      <InsightProgress state={state} />
      {state.phase === 'idle' && canRun && (
        <p class="empty-state">Name the events and press Show retention. The link of this page then shows the same table.</p>
      )}
      {answer && result && (
        <>
          {result.cohorts.length === 0 && <p class="empty-state">Nobody did {result.start_event} in this range.</p>}
          {result.cohorts.length > 0 && <RetentionChart result={result} />}
          <RetentionTable result={result} />
          <SaveInsight api={api} projectId={projectId} kind="retention" definition={answer.definition} opened={opened} />
          <InsightHowComputed answer={answer}>
            <li>
              <strong>Cohorts:</strong> each user is in the {result.interval} of their first {result.start_event} in the range
              {result.interval === 'week' ? ` (weeks start on Monday, ${answer.time_zone ?? 'UTC'})` : ` (${answer.time_zone ?? 'UTC'})`}.
            </li>
            <li>
              <strong>Returns:</strong> a user counts once in a {result.interval} in which they did {result.return_event} at or after their first{' '}
              {result.start_event}; {result.interval} 0 is the cohort's own.
            </li>
          </InsightHowComputed>
        </>
      )}
    </>
  );
}
