/** GET /admin/v1/projects/{project_id}/events: recent stored events, newest first, read from the raw event stream. */
import * as z from 'zod';
import { textRule } from '../domain/client-text-schema';
import { json } from '../http/event';
import { limitParam } from '../http/limit-param';
import { parseWith } from '../http/validate';
import type { ProjectStore, RecentEvents } from '../ports';
import { requireProject, wrapAdmin, type AdminDeps } from './admin';

export const MAX_LISTING_LIMIT = 1000;

const FILTER_RULE = 'A value with U+0000 or an unpaired UTF-16 surrogate gets 400: no stored event has one (docs/api.md, "Text from clients").';

/** Filters follow the text rule of what they match, so every value reaching the query can be a stored one. */
export const Query = z.object({
  user_id: textRule(z.string().min(1), 'user_id').describe(FILTER_RULE).optional(),
  name: textRule(z.string().min(1), 'name').describe(FILTER_RULE).optional(),
  limit: limitParam(MAX_LISTING_LIMIT, 100),
});

export interface EventsListDeps extends AdminDeps {
  projects: ProjectStore;
  recentEvents: RecentEvents;
  clock: () => number;
}

export function createEventsListHandler(deps: EventsListDeps) {
  return wrapAdmin('admin-events-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const q = parseWith(Query, event.queryStringParameters ?? {});
    const events = await deps.recentEvents.recent(project.id, { userId: q.user_id, name: q.name, limit: q.limit }, deps.clock());
    return json(200, { events });
  });
}
