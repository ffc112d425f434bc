/**
 * The experiments of a project at a glance: status, enrolled users, each variant's lift on the goal
 * event against the control as the experiment's own analysis states it (the results page's figures:
 * lambdas/domain/primary-analysis.ts), and the sample-ratio health, from the stored results the list
 * carries (results_summary); and "Create experiment".
 */
import { useCan } from '../role';
import { ReadOnlyNote } from '../components/read-only-note';
import type { ExperimentListed, LiftSummary } from '../admin-types';
import { AsyncView, useAsync } from '../components/async-view';
import { ListTable, newestFirst } from '../components/list-table';
import { StatusBadge } from '../components/status-badge';
import type { PageProps } from '../page';
import { navigate, pathOf } from '../router';
import type { ResultsSummary } from '../admin-types';
import { formatCount, formatInterval, formatRelative, NOT_COMPUTABLE } from '../results/format-stats';
import { decisionStatement } from '../results/verdict';

export function ExperimentsPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const list = useAsync(() => api.get<{ experiments: ExperimentListed[] }>(`/admin/v1${pathOf('projects', projectId)}/experiments`), [api, projectId]);
  const canCreate = useCan('experimenter');
  return (
    <>
      <div class="page-heading">
        <h1>Experiments</h1>
        {canCreate && (
          <button type="button" onClick={() => navigate(`${pathOf('projects', projectId, 'experiments')}/new`)}>
            Create experiment
          </button>
        )}
      </div>
      <p class="muted">
        An experiment splits users between variants (the first is the control) and compares how many reach its goal event. Create it, then Start it; Stop it
        when you have your answer.
      </p>
      {!canCreate && <ReadOnlyNote needed="experimenter" what="create, start and stop experiments" />}
      <AsyncView state={list}>
        {({ experiments }) =>
          experiments.length === 0 ? (
            <p class="muted">No experiments yet. Create one to test a change against a control.</p>
          ) : (
            <ListTable columns={['Name', 'Status', 'Goal', 'Enrolled', 'Lift against control', 'Health']} action="Results" name="experiments-table">
              {newestFirst(experiments).map((e) => {
                const summary = e.results_summary;
                const notYet = e.status === 'created' ? 'Not started' : 'Not computed yet';
                return (
                  <tr key={e.id}>
                    <td data-label="Name">
                      <a href={`#${pathOf('projects', projectId, 'experiments', e.id)}`}>{e.name}</a>
                    </td>
                    <td data-label="Status">
                      <StatusBadge status={e.status} />
                    </td>
                    <td data-label="Goal">
                      <code>{e.goal_event}</code>
                    </td>
                    <td class="num" data-label="Enrolled">
                      {summary ? formatCount(summary.enrolled) : <span class="muted">{notYet}</span>}
                    </td>
                    <td data-label="Lift against control">
                      {summary?.analysis ? (
                        <ul class="plain lifts">
                          {summary.lift.map((l) => (
                            <li key={l.variant}>
                              <Lift lift={l} analysis={summary.analysis!} />
                            </li>
                          ))}
                        </ul>
                      ) : summary ? (
                        <span class="muted">Open the results and press Refresh</span>
                      ) : (
                        <span class="muted">{notYet}</span>
                      )}
                    </td>
                    <td data-label="Health">
                      {summary?.srm.flagged ? (
                        <span class="health health-bad">Sample ratio mismatch</span>
                      ) : summary && summary.srm.p_value !== null ? (
                        <span class="health health-ok">Healthy split</span>
                      ) : (
                        <span class="muted">{summary ? 'No one enrolled yet' : NOT_COMPUTABLE}</span>
                      )}
                    </td>
                    <td>
                      {e.status !== 'created' && (
                        <a href={`#${pathOf('projects', projectId, 'experiments', e.id, 'results')}`} aria-label={`Results of ${e.name}`}>
                          Results
                        </a>
                      )}
                    </td>
                  </tr>
                );
              })}
            </ListTable>
          )
        }
      </AsyncView>
    </>
  );
}

/**
 * "treatment +12.3% (+1.2% to +25.0%) better (sequential test, Holm-adjusted p = 0.012)": the relative
 * difference with its own interval, and the decision in words with the p-value it rests on, as the
 * results page's verdict states it.
 */
function Lift({ lift, analysis }: { lift: LiftSummary; analysis: NonNullable<ResultsSummary['analysis']> }) {
  const { variant, outcome } = lift;
  if (outcome === 'not-testable') return <>{`${variant}: not enough data`}</>;
  const significant = outcome === 'better' || outcome === 'worse';
  const word = significant ? outcome : 'no significant difference';
  return (
    <>
      <span class="lift-variant">{variant}</span> <strong class="num">{formatRelative(lift.relative_difference)}</strong>{' '}
      <span class="lift-interval">{formatInterval(lift.relative_ci_low, lift.relative_ci_high, formatRelative)}</span>{' '}
      <span class={significant ? `lift-word lift-${outcome === 'better' ? 'up' : 'down'}` : 'lift-word muted'}>
        {word} ({decisionStatement(analysis, lift.decision_p_value)})
      </span>
    </>
  );
}
