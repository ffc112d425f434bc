/** The experiments of a project: the list with status, and "Create experiment". */
import type { Experiment } from '../admin-types';
import { AsyncView, useAsync } from '../components/async-view';
import { ListTable, newestFirst } from '../components/list-table';
import { StatusBadge } from '../components/status-badge';
import { formatTime } from '../format-time';
import type { PageProps } from '../page';
import { navigate, pathOf } from '../router';

export function ExperimentsPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const list = useAsync(() => api.get<{ experiments: Experiment[] }>(`/admin/v1${pathOf('projects', projectId)}/experiments`), [api, projectId]);
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
            <ListTable columns={['Name', 'Status', 'Goal', 'Variants', 'Started']} action="Results" name="experiments-table">
              {newestFirst(experiments).map((e) => (
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
                  <td data-label="Variants">{e.variants.join(', ')}</td>
                  <td data-label="Started">{e.started_at ? formatTime(e.started_at) : 'not started'}</td>
                  <td>
                    {e.status !== 'created' && (
                      <a href={`#${pathOf('projects', projectId, 'experiments', e.id, 'results')}`} aria-label={`Results of ${e.name}`}>
                        Results
                      </a>
                    )}
                  </td>
                </tr>
              ))}
            </ListTable>
          )
        }
      </AsyncView>
    </>
  );
}
