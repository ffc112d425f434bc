/**
 * Audit log: who changed what in the admin API, newest first (GET /admin/v1/audit, admins only), with
 * filters by person, route and project, and older entries page by page. Field names only: the log
 * never holds the values that were sent.
 */
import { useState } from 'preact/hooks';
import { actorName } from '../../../lambdas/domain/audit-entry';
import type { AuditEntry } from '../admin-types';
import { AsyncView, useAsync } from '../components/async-view';
import { Field } from '../components/field';
import { ListTable } from '../components/list-table';
import { formatTime } from '../format-time';
import type { PageProps } from '../page';

const LIMIT = 50;

export function AuditPage({ api }: PageProps) {
  const [filters, setFilters] = useState({ actor: '', route: '', project: '' });
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const list = useAsync(() => {
    const q = new URLSearchParams({ limit: String(LIMIT) });
    if (filters.actor) q.set('actor', filters.actor);
    if (filters.route) q.set('route', filters.route);
    if (filters.project) q.set('project_id', filters.project);
    if (cursor) q.set('cursor', cursor);
    return api.get<{ entries: AuditEntry[]; next_cursor: string | null }>(`/admin/v1/audit?${q}`);
  }, [api, filters, cursor]);
  return (
    <>
      <h1>Audit log</h1>
      <form
        class="inline-form filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const text = (name: string) => String(form.get(name) ?? '').trim();
          setCursors([]);
          setFilters({ actor: text('actor'), route: text('route'), project: text('project') });
        }}
      >
        <Field id="audit-actor" label="Who" hint='An email, a subject, or "admin token".'>
          <input name="actor" type="text" autoComplete="off" />
        </Field>
        <Field id="audit-route" label="Route" hint="A route name, such as admin-experiments-start.">
          <input name="route" type="text" autoComplete="off" />
        </Field>
        <Field id="audit-project" label="Project ID">
          <input name="project" type="text" autoComplete="off" />
        </Field>
        <button type="submit">Filter</button>
      </form>
      <AsyncView state={list}>
        {({ entries, next_cursor }) =>
          entries.length === 0 ? (
            <p class="muted">No changes recorded{filters.actor || filters.route || filters.project ? ' for these filters' : ''}.</p>
          ) : (
            <>
              <ListTable columns={['When', 'Who', 'Role', 'Change', 'Target', 'Fields', 'From', 'Status']} action="" name="audit">
                {entries.map((e) => (
                  <tr key={e.id}>
                    <td data-label="When">{formatTime(e.at)}</td>
                    <td data-label="Who">{actorName(e.actor)}</td>
                    <td data-label="Role">{e.role}</td>
                    <td data-label="Change" class="mono">
                      {e.route}
                    </td>
                    <td data-label="Target" class="mono">
                      {Object.entries(e.target)
                        .map(([k, v]) => `${k} ${v}`)
                        .join(', ') || '—'}
                    </td>
                    <td data-label="Fields">{e.fields.join(', ') || '—'}</td>
                    <td data-label="From" class="mono">
                      {e.network ?? '—'}
                    </td>
                    <td data-label="Status">{e.status ?? 'not recorded'}</td>
                    <td />
                  </tr>
                ))}
              </ListTable>
              <div class="toolbar">
                {cursors.length > 0 && (
                  <button type="button" class="secondary" onClick={() => setCursors((c) => c.slice(0, -1))}>
                    Newer entries
                  </button>
                )}
                {next_cursor && (
                  <button type="button" class="secondary" onClick={() => setCursors((c) => [...c, next_cursor])}>
                    Older entries
                  </button>
                )}
              </div>
            </>
          )
        }
      </AsyncView>
      <p class="muted small-print">
        Every change made through the admin API, with the names of the fields it sent but never their values. From: the network the request came from, not the
        address.
      </p>
    </>
  );
}
