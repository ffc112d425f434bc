/**
 * The experiments of a project at a glance: status, enrolled users, each variant's lift on the goal
 * event against the control, and the sample-ratio health, from the stored results the list carries
 * (results_summary); and "Create experiment".
 */
import type { ExperimentListed, LiftSummary } from '../admin-types';
import { AsyncView, useAsync } from '../components/async-view';
import { ListTable, newestFirst } from '../components/list-table';
import { StatusBadge } from '../components/status-badge';
import type { PageProps } from '../page';
import { navigate, pathOf } from '../router';
import { ALPHA, formatCount, formatPStatement, formatRelative, NOT_COMPUTABLE } from '../results/format-stats';

export function ExperimentsPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const list = useAsync(() => api.get<{ experiments: ExperimentListed[] }>(`/admin/v1${pathOf('projects', projectId)}/experiments`), [api, projectId]);
  return (
    <>
      <div class="page-heading">
        <h1>Experiments</h1>
        <button type="button" onClick={() => navigate(`${pathOf('projects', projectId, 'experiments')}/new`)}>
          Create experiment
        </button>
      </div>
      <p class="muted">
        An experiment splits users between variants (the first is the control) and compares how many reach its goal event. Create it, then Start it; Stop it
        when you have your answer.
      </p>
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
                      {summary ? (
                        <ul class="plain lifts">
                          {summary.lift.map((l) => (
                            <li key={l.variant}>
                              <Lift lift={l} />
                            </li>
                          ))}
                        </ul>
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

/** "treatment +12.3%, better (p = 0.012)": the relative difference, and in words whether it is significant at ALPHA. */
function Lift({ lift }: { lift: LiftSummary }) {
  const { variant, relative_diff: relative, absolute_diff: diff, p_value: p } = lift;
  if (p === null || diff === null) return <>{`${variant}: not enough data`}</>;
  const word = p < ALPHA && diff !== 0 ? (diff > 0 ? 'better' : 'worse') : 'no clear difference';
  return (
    <>
      <span class="lift-variant">{variant}</span> <strong class="num">{formatRelative(relative)}</strong>{' '}
      <span class={p < ALPHA && diff !== 0 ? `lift-word lift-${diff > 0 ? 'up' : 'down'}` : 'lift-word muted'}>
        {word} ({formatPStatement(p)})
      </span>
    </>
  );
}
