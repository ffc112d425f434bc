/** The experiments of a project: the list with status, and "Create experiment". */
import { navigate, pathOf } from '../router';
import type { PageProps } from '../page';
import { formatTime } from '../results/format';
import { StatusBadge } from '../results/status-badge';
import type { Experiment } from '../results/types';
import { errorText, useLoad } from '../results/use-load';
import '../results/results.css';

export function ExperimentsPage({ api, params }: PageProps) {
  const { projectId } = params as { projectId: string };
  const list = useLoad(() => api.get<{ experiments: Experiment[] }>(`/admin/v1/projects/${encodeURIComponent(projectId)}/experiments`), [api, projectId]);
  const experiments = [...(list.value?.experiments ?? [])].sort((a, b) => b.created_at.localeCompare(a.created_at));
  return (
    <section class="results-page">
      <div class="page-heading">
        <h1>Experiments</h1>
        <button type="button" class="primary" onClick={() => navigate(`${pathOf('projects', projectId, 'experiments')}/new`)}>
          Create experiment
        </button>
      </div>
      {list.error !== undefined && <p role="alert">Could not load the experiments: {errorText(list.error)}</p>}
      {list.loading && !list.value && <p>Loading…</p>}
      {list.value && experiments.length === 0 && <p>No experiments yet. Create one to test a change against a control.</p>}
      {experiments.length > 0 && (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Experiments">
          <table class="results-table experiments-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Goal</th>
                <th scope="col">Variants</th>
                <th scope="col">Started</th>
                <th scope="col">
                  <span class="visually-hidden">Results</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {experiments.map((e) => (
                <tr key={e.id}>
                  <th scope="row">
                    <a href={`#${pathOf('projects', projectId, 'experiments', e.id)}`}>{e.name}</a>
                  </th>
                  <td>
                    <StatusBadge status={e.status} />
                  </td>
                  <td>
                    <code>{e.goal_event}</code>
                  </td>
                  <td>{e.variants.join(', ')}</td>
                  <td>{e.started_at ? formatTime(e.started_at) : 'not started'}</td>
                  <td>
                    {e.status !== 'created' && (
                      <a href={`#${pathOf('projects', projectId, 'experiments', e.id, 'results')}`} aria-label={`Results of ${e.name}`}>
                        Results
                      </a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
