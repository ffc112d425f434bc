/**
 * GET /admin/v1/projects/{project_id}/users: the users seen recently, the most recent first, optionally
 * searched by ID, email or name; GET /admin/v1/projects/{project_id}/users/{id}: a user's canonical ID, linked IDs and profile.
 */
import * as z from 'zod';
import { compareFirstSeen } from '../domain/canonical-order';
import { textProblem } from '../domain/client-text';
import { idKeyProblem } from '../domain/id-key-budget';
import { ApiError, notFound } from '../http/api-error';
import { json } from '../http/event';
import { parseWith } from '../http/validate';
import type { IdentityItem, IdentityStore, ProjectStore, RecentUsers, UserGroup } from '../ports';
import { pathParam, requireProject, wrapAdmin, type AdminDeps } from './admin';

export const MAX_USERS_LISTED = 200;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UsersListQuery = z.object({
  search: z
    .string()
    .trim()
    .min(1, 'search must not be empty')
    .max(1024, 'search must be at most 1024 characters')
    .refine((s) => !s.includes('\u0000'), 'search must not contain NUL characters')
    .refine((s) => !LONE_SURROGATE.test(s), 'search must be well-formed Unicode')
    .optional(),
  limit: z.coerce
    .number({ error: 'limit must be an integer' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(MAX_USERS_LISTED, `limit must be at most ${MAX_USERS_LISTED}`)
    .default(50),
});

export interface UsersListDeps extends AdminDeps {
  projects: ProjectStore;
  recentUsers: RecentUsers;
  identities: IdentityStore;
  clock: () => number;
}

export function createUsersListHandler(deps: UsersListDeps) {
  return wrapAdmin('admin-users-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const q = parseWith(UsersListQuery, event.queryStringParameters ?? {});
    const recent = await deps.recentUsers.recent(project.id, { search: q.search, limit: q.limit }, deps.clock());
    // Each listed user's profile and first seen come from its identity group: one read per listed user (at most MAX_USERS_LISTED).
    const users = await Promise.all(
      recent.map(async (user) => ({
        ...user,
        ...profileOf(idKeyProblem('id', user.user_id) ? undefined : await deps.identities.group(project.id, user.user_id)),
      })),
    );
    return json(200, { users });
  });
}

export interface UsersDeps extends AdminDeps {
  projects: ProjectStore;
  identities: IdentityStore;
}

/** Profile fields live on the item of the ID that sent them; across a group the latest value wins. */
function latest(members: IdentityItem[], field: 'email' | 'name'): string | null {
  let best: { value: string; at: number } | undefined;
  for (const m of members) {
    const value = m[field];
    const at = m[`${field}_at`];
    if (value !== undefined && at !== undefined && (!best || at > best.at)) best = { value, at };
  }
  return best?.value ?? null;
}

/** A user's email, name and first seen as its identity group says; null where unknown (no group, or no $identify gave it). */
function profileOf(group: UserGroup | undefined): { email: string | null; name: string | null; first_seen: string | null } {
  if (!group) return { email: null, name: null, first_seen: null };
  return {
    email: latest(group.members, 'email'),
    name: latest(group.members, 'name'),
    first_seen: new Date(group.canonical.first_seen_ms).toISOString(),
  };
}

export function createUsersGetHandler(deps: UsersDeps) {
  return wrapAdmin('admin-users-get', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const id = pathParam(event, 'id');
    // The text rule of IDs: such an ID was never stored, and the answer says why.
    const problem = textProblem('id', id);
    if (problem) throw new ApiError(400, problem);
    // An ID over the key budget can never have been stored; asking DynamoDB would fail the request.
    const group = idKeyProblem('id', id) ? undefined : await deps.identities.group(project.id, id);
    if (!group) throw notFound(`User ${id} not found in project ${project.id}`);
    const ids = [...group.members].sort(compareFirstSeen).map((m) => m.id);
    return json(200, {
      user_id: group.canonical.id,
      ids,
      ...profileOf(group),
    });
  });
}
