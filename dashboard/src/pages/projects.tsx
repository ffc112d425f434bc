/** Projects: the list, and "Create project" (which opens the new project's Keys page). */
import { useCan } from '../role';
import { ReadOnlyNote } from '../components/read-only-note';
import { useState } from 'preact/hooks';
import { projectNameProblem } from '../../../lambdas/domain/project-fields';
import type { Project } from '../admin-types';
import { ApiError } from '../api';
import { AsyncView, useAsync } from '../components/async-view';
import { newestFirst } from '../components/list-table';
import { Field } from '../components/field';
import { TimeZoneSelect } from '../components/time-zone-select';
import { formatTime } from '../format-time';
import type { ApiClient } from '../api';
import type { PageProps } from '../page';
import { navigate, pathOf } from '../router';

export function ProjectsPage({ api }: PageProps) {
  const list = useAsync(() => api.get<{ projects: Project[] }>('/admin/v1/projects'), [api]);
  const [error, setError] = useState<ApiError | null>(null);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const canCreate = useCan('admin');
  return (
    <>
      <h1>Projects</h1>
      {!canCreate && <ReadOnlyNote needed="admin" what="create projects and change their time zone" />}
      {canCreate && (
        <section aria-labelledby="new-project">
          <h2 id="new-project">New project</h2>
          <form
            class="inline-form"
            noValidate
            onSubmit={async (e) => {
              e.preventDefault();
              const form = e.currentTarget;
              const name = String(new FormData(form).get('name') ?? '');
              // Checked here first: nothing is sent that the API would refuse.
              const found = projectNameProblem(name);
              setProblem(found);
              setError(null);
              if (found) return form.querySelector<HTMLInputElement>('input[name="name"]')?.focus();
              setBusy(true);
              try {
                const project = await api.post<Project>('/admin/v1/projects', { name });
                navigate(`${pathOf('projects', project.id)}/keys`);
              } catch (err) {
                setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
                setBusy(false);
              }
            }}
          >
            <Field id="project-name" label="Name" error={problem ?? error?.forField('name') ?? error?.apartFrom(['name'])}>
              <input name="name" type="text" autoComplete="off" />
            </Field>
            <button type="submit" disabled={busy}>
              Create project
            </button>
          </form>
        </section>
      )}
      <section aria-labelledby="all-projects">
        <h2 id="all-projects">All projects</h2>
        <AsyncView state={list}>
          {({ projects }) =>
            projects.length === 0 ? (
              <p class="muted">No projects yet. Create one above; then create a key for your app on its Keys page.</p>
            ) : (
              <ul class="cards">
                {newestFirst(projects).map((p) => (
                  <li key={p.id} class="card">
                    <a class="card-title" href={`#${pathOf('projects', p.id)}/keys`}>
                      {p.name}
                    </a>
                    <span class="muted mono">{p.id}</span>
                    <span class="muted">Created {formatTime(p.created_at)}</span>
                    <ProjectTimeZone api={api} project={p} />
                    <span class="links">
                      <a href={`#${pathOf('projects', p.id)}/install`}>Install</a>
                      <a href={`#${pathOf('projects', p.id)}/events`}>Events</a>
                      <a href={`#${pathOf('projects', p.id)}/users`}>People</a>
                      <a href={`#${pathOf('projects', p.id)}/experiments`}>Experiments</a>
                      <a href={`#${pathOf('projects', p.id)}/insights`}>Insights</a>
                    </span>
                  </li>
                ))}
              </ul>
            )
          }
        </AsyncView>
      </section>
    </>
  );
}

/** A project's time zone on its card, changed in place (PATCH, admins): insights count its local days, weeks and hours. */
function ProjectTimeZone({ api, project }: { api: ApiClient; project: Project }) {
  const [zone, setZone] = useState(project.time_zone ?? 'UTC');
  const canChange = useCan('admin');
  const [state, setState] = useState<{ busy: boolean; saved: boolean; error: ApiError | null }>({ busy: false, saved: false, error: null });
  const id = `time-zone-${project.id}`;
  if (!canChange) return <span class="muted">Time zone (insights' days and hours): {zone}</span>;
  return (
    <form
      class="inline-form"
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        const time_zone = String(new FormData(e.currentTarget).get('time_zone') ?? zone);
        setState({ busy: true, saved: false, error: null });
        try {
          const updated = await api.patch<Project>(`/admin/v1/projects/${encodeURIComponent(project.id)}`, { time_zone });
          setZone(updated.time_zone ?? 'UTC');
          setState({ busy: false, saved: true, error: null });
        } catch (err) {
          setState({ busy: false, saved: false, error: err instanceof ApiError ? err : new ApiError(0, String(err)) });
        }
      }}
    >
      <Field id={id} label="Time zone (insights' days and hours)" error={state.error?.forField('time_zone') ?? state.error?.apartFrom(['time_zone'])}>
        <TimeZoneSelect id={id} name="time_zone" value={zone} />
      </Field>
      <button type="submit" disabled={state.busy}>
        Save time zone
      </button>
      {state.saved && (
        <span class="muted" role="status">
          Saved: insights now count days in {zone}.
        </span>
      )}
    </form>
  );
}
