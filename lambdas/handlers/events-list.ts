/**
 * GET /admin/v1/projects/{project_id}/events: recent stored events, newest first, read from the raw
 * event stream. A user_id filter finds the person: every ID linked to the given one (its identity
 * group, now), matched as the canonical ID or as sent. Each listed event's person is named in `people`
 * (by canonical user_id: label, email, name), the same label People and a person's page show.
 */
import * as z from 'zod';
import { mapLimit } from '../domain/concurrency';
import { textProblem } from '../domain/client-text';
import { textRule } from '../domain/client-text-schema';
import { idKeyProblem } from '../domain/id-key-budget';
import { json } from '../http/event';
import { limitParam } from '../http/limit-param';
import { parseWith } from '../http/validate';
import type { IdentityStore, ProjectStore, RecentEvents, UserGroup } from '../ports';
import { requireProject, wrapAdmin, type AdminDeps } from './admin';
import { personOf } from './person-profile';

export const MAX_LISTING_LIMIT = 1000;
/** A person's linked IDs the filter matches at most (the most recently linked first is not needed: groups this large are bots). */
export const MAX_FILTER_IDS = 100;
/** People named per listing (one identity-group read each); events of others show their ID as sent. */
export const MAX_PEOPLE_NAMED = 100;
const GROUP_READS = 8;

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
  identities: IdentityStore;
  clock: () => number;
}

export function createEventsListHandler(deps: EventsListDeps) {
  const groupOf = (projectId: string, id: string) => (idKeyProblem('id', id) ? Promise.resolve(undefined) : deps.identities.group(projectId, id));
  return wrapAdmin('admin-events-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const q = parseWith(Query, event.queryStringParameters ?? {});
    let userIds: string[] | undefined;
    // Groups read in this request, by canonical ID: the filter's person is not read again to be named.
    const read = new Map<string, UserGroup>();
    if (q.user_id !== undefined) {
      const group = await groupOf(project.id, q.user_id);
      if (group) read.set(group.canonical.id, group);
      // An ID linked before the text rule may break it: no event is stored under it that the listing could show.
      const linked = (group?.members.map((m) => m.id) ?? []).filter((id) => textProblem('user_id', id) === undefined);
      userIds = [...new Set([q.user_id, ...linked])].slice(0, MAX_FILTER_IDS);
    }
    const events = await deps.recentEvents.recent(project.id, { userIds, name: q.name, limit: q.limit }, deps.clock());
    const named = [...new Set(events.flatMap((e) => (e.user_id === null ? [] : [e.user_id])))].slice(0, MAX_PEOPLE_NAMED);
    const people = await mapLimit(named, GROUP_READS, async (id) => {
      const group = read.get(id) ?? (await groupOf(project.id, id));
      return [id, group ? personOf(group) : undefined] as const;
    });
    return json(200, { events, people: Object.fromEntries(people.filter(([, p]) => p !== undefined)) });
  });
}
