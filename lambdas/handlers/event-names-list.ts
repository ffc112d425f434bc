/**
 * GET /admin/v1/projects/{project_id}/event-names: the event names received within the events
 * listing's window, each with its events (counted once) and newest timestamp, the most events first:
 * what the dashboard suggests in its event fields (the latest events alone can miss a rarer name).
 */
import * as z from 'zod';
import { json } from '../http/event';
import { limitParam } from '../http/limit-param';
import { parseWith } from '../http/validate';
import type { ProjectStore, RecentEvents } from '../ports';
import { requireProject, wrapAdmin, type AdminDeps } from './admin';

export const MAX_EVENT_NAMES = 1000;

export const Query = z.object({
  limit: limitParam(MAX_EVENT_NAMES, MAX_EVENT_NAMES),
});

export interface EventNamesListDeps extends AdminDeps {
  projects: ProjectStore;
  recentEvents: RecentEvents;
  clock: () => number;
}

export function createEventNamesListHandler(deps: EventNamesListDeps) {
  return wrapAdmin('admin-event-names-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const q = parseWith(Query, event.queryStringParameters ?? {});
    return json(200, { event_names: await deps.recentEvents.names(project.id, q.limit, deps.clock()) });
  });
}
