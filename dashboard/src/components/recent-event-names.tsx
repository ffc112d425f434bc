/**
 * Suggestions for an event-name field: the names of the project's latest 1,000 events (the admin
 * events listing), without Tally's own `$` events, sorted. Nothing to suggest when the listing fails:
 * the field still takes any name typed.
 */
import type { ApiClient } from '../api';
import { useAsync } from './async-view';

async function recentEventNames(api: ApiClient, projectId: string): Promise<string[]> {
  const { events } = await api.get<{ events: Array<{ name: string }> }>(`/admin/v1/projects/${encodeURIComponent(projectId)}/events?limit=1000`);
  return [...new Set(events.map((e) => e.name).filter((n) => !n.startsWith('$')))].sort();
}

/** The names, once loaded (empty until then and when the listing fails). */
export function useRecentEventNames(api: ApiClient, projectId: string): string[] {
  return useAsync(() => recentEventNames(api, projectId).catch(() => []), [api, projectId]).data ?? [];
}

/** The `<datalist>` an input names in its `list` attribute. */
export function EventNameOptions({ id, names }: { id: string; names: string[] }) {
  return (
    <datalist id={id}>
      {names.map((n) => (
        <option key={n} value={n} />
      ))}
    </datalist>
  );
}
