/**
 * Events: the recent-events listing (newest first) with filters by name and user ID (any ID of a
 * person finds all of that person's events), auto-refresh, each row named by its person and its full JSON.
 */
import { useEffect, useState } from 'preact/hooks';
import type { StoredEvent } from '../admin-types';
import { AsyncView, useAsync } from '../components/async-view';
import { EventList, type People } from '../components/event-list';
import { Field } from '../components/field';
import type { PageProps } from '../page';
import { pathOf } from '../router';

/** How often auto-refresh reloads the listing. */
export const AUTO_REFRESH_MS = 5000;
const LIMIT = 100;

export function EventsPage({ api, params }: PageProps) {
  const projectPath = pathOf('projects', params.projectId!);
  const [filters, setFilters] = useState({ name: '', userId: '' });
  const [auto, setAuto] = useState(false);
  const list = useAsync(() => {
    const q = new URLSearchParams({ limit: String(LIMIT) });
    if (filters.name) q.set('name', filters.name);
    if (filters.userId) q.set('user_id', filters.userId);
    return api.get<{ events: StoredEvent[]; people: People }>(`/admin/v1${projectPath}/events?${q}`);
  }, [api, projectPath, filters]);
  useEffect(() => {
    if (!auto) return;
    const timer = setInterval(() => void list.reload(), AUTO_REFRESH_MS);
    return () => clearInterval(timer);
  }, [auto, list.reload]);
  return (
    <>
      <h1>Events</h1>
      <form
        class="inline-form filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          setFilters({ name: String(form.get('name') ?? '').trim(), userId: String(form.get('user_id') ?? '').trim() });
        }}
      >
        <Field id="filter-name" label="Event name">
          <input name="name" type="text" autoComplete="off" />
        </Field>
        <Field id="filter-user" label="User ID" hint="Any ID of a person: their events under every linked ID are listed.">
          <input name="user_id" type="text" autoComplete="off" />
        </Field>
        <button type="submit">Filter</button>
      </form>
      <div class="toolbar">
        <label class="check">
          <input type="checkbox" checked={auto} onChange={(e) => setAuto(e.currentTarget.checked)} /> Auto-refresh every {AUTO_REFRESH_MS / 1000} s
        </label>
        <button type="button" class="secondary" onClick={() => void list.reload()} disabled={list.loading}>
          Refresh
        </button>
        <span class="muted" role="status">
          {list.data ? `${list.data.events.length} event${list.data.events.length === 1 ? '' : 's'}, newest first` : ''}
        </span>
      </div>
      <AsyncView state={list}>
        {({ events, people }) => <EventList events={events} people={people} userHref={(id) => `#${projectPath}/users/${encodeURIComponent(id)}`} />}
      </AsyncView>
      <p class="muted small-print">
        The latest {LIMIT} matching events received in the deduplication window. On AWS an event appears once Firehose has delivered it (up to 5 minutes).
      </p>
    </>
  );
}
