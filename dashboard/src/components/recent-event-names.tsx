/**
 * Suggestions for an event-name field: the names the project's events were sent with within the
 * events window (GET …/event-names: every name, not only those of the latest events), the most
 * events first, without Tally's own `$` events. Nothing to suggest when that fails: the field still
 * takes any name typed.
 */
import type { ApiClient } from '../api';
import { useAsync } from './async-view';

async function recentEventNames(api: ApiClient, projectId: string): Promise<string[]> {
  const { event_names } = await api.get<{ event_names: Array<{ name: string }> }>(`/admin/v1/projects/${encodeURIComponent(projectId)}/event-names`);
  return event_names.map((e) => e.name).filter((n) => !n.startsWith('$'));
}

/** The names, once loaded (empty until then and when the listing fails). */
export function useRecentEventNames(api: ApiClient, projectId: string): string[] {
  return useAsync(() => recentEventNames(api, projectId).catch(() => []), [api, projectId]).data ?? [];
}

async function recentPropertyNames(api: ApiClient, projectId: string): Promise<string[]> {
  const { property_names } = await api.get<{ property_names: Array<{ name: string }> }>(`/admin/v1/projects/${encodeURIComponent(projectId)}/property-names`);
  return property_names.map((p) => p.name);
}

/**
 * Suggestions for a property-name field: the property names of the project's latest events (GET
 * …/property-names), the most events first; none when that fails (the field takes any name).
 */
export function useRecentPropertyNames(api: ApiClient, projectId: string): string[] {
  return useAsync(() => recentPropertyNames(api, projectId).catch(() => []), [api, projectId]).data ?? [];
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
