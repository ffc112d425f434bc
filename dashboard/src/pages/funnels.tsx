/**
 * Funnels (issue 25): steps (each optionally filtered by one property), range, window and breakdown
 * in a form (insights/funnel-form.tsx); the funnel as bars and a table per group, with "How this was
 * computed" naming each step with its filter. The definition is in the URL hash (shareable), and a
 * running query can be left and come back to (insights/use-insight-page.ts).
 */
import { useRecentEventNames, useRecentPropertyNames } from '../components/recent-event-names';
import { breakdownLabel } from '../../../lambdas/domain/insights/breakdown-line';
import { FunnelChart } from '../insights/funnel-chart';
import { FUNNEL_BREAKDOWNS, stepName, type FunnelDefinition } from '../insights/funnel-draft';
import { FUNNEL_FORM_FIELDS, FunnelForm } from '../insights/funnel-form';
import type { FunnelsResult } from '../insights/funnel-types';
import { InsightHowComputed } from '../insights/insight-how-computed';
import { InsightProgress } from '../insights/insight-progress';
import { InsightTitle, SaveInsight, useOpenedInsight } from '../insights/save-insight';
import { LinkProblem } from '../insights/link-problem';
import { useInsightPage } from '../insights/use-insight-page';
import { ReadOnlyNote } from '../components/read-only-note';
import type { PageProps } from '../page';
import { pathOf } from '../router';
import '../insights/insights.css';

const breakdownWords = (by: string) => FUNNEL_BREAKDOWNS.find(([b]) => b === by)?.[1].toLowerCase() ?? by;

export function FunnelsPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const opened = useOpenedInsight(api, projectId);
  const eventNames = useRecentEventNames(api, projectId);
  const propertyNames = useRecentPropertyNames(api, projectId);
  const { state, run, initial, formKey, apiError, formError, answer, linkProblem, canRun } = useInsightPage<FunnelsResult, FunnelDefinition>(
    api,
    projectId,
    'funnels',
    FUNNEL_FORM_FIELDS,
  );
  const result = answer?.result;
  return (
    <>
      <p class="breadcrumb">
        <a href={`#${pathOf('projects', projectId, 'insights')}`}>Insights</a>
      </p>
      <InsightTitle api={api} projectId={projectId} title="Funnels" opened={opened} />
      <LinkProblem problem={linkProblem} />
      {!canRun && <ReadOnlyNote needed="analyst" what="run insights" />}
      <FunnelForm
        key={formKey}
        initial={initial}
        apiError={apiError}
        busy={state.phase === 'starting' || !canRun}
        onRun={run}
        eventNames={eventNames}
        propertyNames={propertyNames}
      />
      {formError !== undefined && (
        <p class="error" role="alert">
          {formError}
        </p>
      )}
      <InsightProgress state={state} />
      {state.phase === 'idle' && canRun && <p class="empty-state">Name the steps and press Show funnel. The link of this page then shows the same funnel.</p>}
      {answer && result && (
        <>
          {result.groups.map((g) => (
            <FunnelChart key={`${g.breakdown_kind}:${g.breakdown_value}`} group={g} title={breakdownLabel(g) ?? 'All users'} />
          ))}
          <SaveInsight api={api} projectId={projectId} kind="funnels" definition={answer.definition} opened={opened} />
          <InsightHowComputed answer={answer}>
            <li>
              <strong>Steps:</strong>{' '}
              {(result.groups[0]?.steps ?? []).map((s, i) => (
                <span key={s.step}>
                  {i > 0 && ', then '}“{stepName(s)}”
                </span>
              ))}
              {result.groups[0]?.steps.some((s) => s.where) &&
                '; a filter keeps the events whose property, as text, is exactly the value (a number 3 is "3", true is "true")'}
              .
            </li>
            <li>
              <strong>Order:</strong> a user's funnel starts at their first first-step event in the range; each next step is the earliest one strictly after the
              step before (the same millisecond does not count) and within {result.conversion_window_days} days of the first step, inside the range.
            </li>
            <li>
              <strong>Times:</strong> the median time from the step before, over the users who reached the step.
            </li>
            {result.breakdown && (
              <li>
                <strong>Breakdown:</strong> by{' '}
                {result.breakdown.property === null ? breakdownWords(result.breakdown.by) : `the property “${result.breakdown.property}”`} on the event that
                started each user's funnel; the 10 values with the most users, the rest as “other”, none as “unknown”.
              </li>
            )}
          </InsightHowComputed>
        </>
      )}
    </>
  );
}
