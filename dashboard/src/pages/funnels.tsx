/**
 * Funnels (issue 25): steps, range, window and breakdown in a form; the funnel as bars and a table per
 * group, with "How this was computed". The definition is in the URL hash (shareable), and a running
 * query can be left and come back to (insights/use-insight-page.ts).
 */
import { Field } from '../components/field';
import { FunnelChart } from '../insights/funnel-chart';
import type { FunnelsResult } from '../insights/funnel-types';
import { InsightHowComputed } from '../insights/insight-how-computed';
import { InsightProgress } from '../insights/insight-progress';
import { SaveInsight } from '../insights/save-insight';
import { useInsightPage } from '../insights/use-insight-page';
import type { PageProps } from '../page';
import { pathOf } from '../router';
import '../insights/insights.css';

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

interface FunnelsDefinition {
  steps: Array<{ event: string; where?: { property: string; equals: string } }>;
  date_from: string;
  date_to: string;
  conversion_window_days: number;
  breakdown?: string;
}

const FIELDS = ['steps', 'date_from', 'date_to', 'conversion_window_days', 'breakdown'];

export function FunnelsPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const { state, run, initial, formKey, apiError, formError, answer } = useInsightPage<FunnelsResult, FunnelsDefinition>(api, projectId, 'funnels', FIELDS);
  const result = answer?.result;
  return (
    <>
      <p class="breadcrumb">
        <a href={`#${pathOf('projects', projectId, 'insights')}`}>Insights</a>
      </p>
      <h1>Funnels</h1>
      <form
        key={formKey}
        class="insight-inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const text = (name: string) => String(f.get(name) ?? '').trim();
          run({
            steps: text('steps')
              .split('\n')
              .map((s) => s.trim())
              .filter(Boolean)
              .map((event) => ({ event })),
            date_from: text('date_from'),
            date_to: text('date_to'),
            conversion_window_days: Number(text('window')),
            ...(text('breakdown') ? { breakdown: text('breakdown') } : {}),
          });
        }}
      >
        <Field id="funnel-steps" label="Steps" hint="One event name per line, in order (2 to 6)" error={apiError?.forField('steps')}>
          <textarea name="steps" rows={4} defaultValue={initial?.steps?.map((s) => s.event).join('\n') ?? ''} />
        </Field>
        <Field id="funnel-from" label="From" error={apiError?.forField('date_from')}>
          <input name="date_from" type="date" defaultValue={initial?.date_from ?? day(-7)} />
        </Field>
        <Field id="funnel-to" label="To" error={apiError?.forField('date_to')}>
          <input name="date_to" type="date" defaultValue={initial?.date_to ?? day(0)} />
        </Field>
        <Field id="funnel-window" label="Window (days)" error={apiError?.forField('conversion_window_days')}>
          <input name="window" type="number" min={1} max={90} defaultValue={String(initial?.conversion_window_days ?? 14)} />
        </Field>
        <Field id="funnel-breakdown" label="Breakdown" error={apiError?.forField('breakdown')}>
          <select name="breakdown" defaultValue={initial?.breakdown ?? ''}>
            <option value="">None</option>
            <option value="platform">Platform</option>
            <option value="country">Country</option>
            <option value="app_version">App version</option>
          </select>
        </Field>
        <button type="submit" disabled={state.phase === 'starting'}>
          Show funnel
        </button>
      </form>
      {formError !== undefined && (
        <p class="error" role="alert">
          {formError}
        </p>
      )}
      <InsightProgress state={state} />
      {state.phase === 'idle' && <p class="empty-state">Name the steps and press Show funnel. The link of this page then shows the same funnel.</p>}
      {answer && result && (
        <>
          {result.groups.map((g) => (
            <FunnelChart key={g.breakdown_value ?? ''} group={g} title={g.breakdown_value === null ? 'All users' : g.breakdown_value} />
          ))}
          <SaveInsight api={api} projectId={projectId} kind="funnels" definition={answer.definition} />
          <InsightHowComputed answer={answer}>
            <li>
              <strong>Order:</strong> a user's funnel starts at their first first-step event in the range; each next step is the earliest one strictly after the
              step before (the same millisecond does not count) and within {result.conversion_window_days} days of the first step, inside the range.
            </li>
            <li>
              <strong>Times:</strong> the median time from the step before, over the users who reached the step.
            </li>
            {result.breakdown && (
              <li>
                <strong>Breakdown:</strong> by the value on the event that started each user's funnel; the 10 values with the most users, the rest as “other”,
                none as “unknown”.
              </li>
            )}
          </InsightHowComputed>
        </>
      )}
    </>
  );
}
