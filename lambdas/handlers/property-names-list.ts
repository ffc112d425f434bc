/**
 * GET /admin/v1/projects/{project_id}/property-names: the top-level event property names of the
 * events received in the latest days of the events listing's window (PROPERTY_NAMES_WINDOW_DAYS at
 * most: a bounded scan), each with how many events carried it, the most first: what the dashboard
 * suggests in its property fields, as event-names does for event fields.
 */
import * as z from 'zod';
import { json } from '../http/event';
import { limitParam } from '../http/limit-param';
import { parseWith } from '../http/validate';
import type { ProjectStore, RecentEvents } from '../ports';
import { requireProject, wrapAdmin, type AdminDeps } from './admin';

export const MAX_PROPERTY_NAMES = 1000;

export const Query = z.object({
  limit: limitParam(MAX_PROPERTY_NAMES, MAX_PROPERTY_NAMES),
});

export interface PropertyNamesListDeps extends AdminDeps {
  projects: ProjectStore;
  recentEvents: RecentEvents;
  clock: () => number;
}

export function createPropertyNamesListHandler(deps: PropertyNamesListDeps) {
  return wrapAdmin('admin-property-names-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const q = parseWith(Query, event.queryStringParameters ?? {});
    return json(200, { property_names: await deps.recentEvents.propertyNames(project.id, q.limit, deps.clock()) });
  });
}
