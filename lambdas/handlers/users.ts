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
import { limitParam } from '../http/limit-param';
import { parseWith } from '../http/validate';
import type { IdentityStore, ProjectStore, RecentUsers, RecentUsersPosition } from '../ports';
import { profileOf } from './person-profile';
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
  limit: limitParam(MAX_USERS_LISTED, 50),
  cursor: z
    .string()
    .max(4096, 'cursor must be at most 4096 characters')
    .transform((s, ctx) => {
      const position = decodeCursor(s);
      if (!position)
        ctx.addIssue({
          code: 'custom',
          message: "cursor is not one this listing gave: pass a response's next_cursor unchanged, or leave it out for the first page",
        });
      return position ?? z.NEVER;
    })
    .optional(),
});

/** The next page's cursor: the last listed user's place in the order, as base64url JSON (opaque to clients). */
export function encodeCursor(position: RecentUsersPosition): string {
  return Buffer.from(JSON.stringify([position.last_seen, position.user_id])).toString('base64url');
}

function decodeCursor(cursor: string): RecentUsersPosition | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [lastSeen, userId] = value as unknown[];
    if (typeof lastSeen !== 'string' || typeof userId !== 'string' || textProblem('user_id', userId) || textProblem('last_seen', lastSeen)) return undefined;
    return { last_seen: lastSeen, user_id: userId };
  } catch {
    return undefined;
  }
}

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
    // One more than asked says whether there is a next page, at no extra cost.
    const found = await deps.recentUsers.recent(project.id, { search: q.search, limit: q.limit + 1, after: q.cursor }, deps.clock());
    const recent = found.slice(0, q.limit);
    const last = recent.at(-1);
    // Each listed user's profile and first seen come from its identity group: one read per listed user (at most MAX_USERS_LISTED).
    const users = await Promise.all(
      recent.map(async (user) => ({
        ...user,
        ...profileOf(idKeyProblem('id', user.user_id) ? undefined : await deps.identities.group(project.id, user.user_id)),
      })),
    );
    return json(200, { users, next_cursor: found.length > q.limit && last ? encodeCursor(last) : null });
  });
}

export interface UsersDeps extends AdminDeps {
  projects: ProjectStore;
  identities: IdentityStore;
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
