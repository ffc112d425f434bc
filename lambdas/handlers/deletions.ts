/**
 * A person's deletion (docs/api.md "Deletions", docs/decisions/erasure.md): POST
 * /admin/v1/projects/{project_id}/deletions records the request (202); the compaction job's runs carry
 * it out (services/erase-people.ts); GET lists a project's deletions, newest first, and GET
 * .../deletions/{deletion_id} shows one with its receipt. The audit log records the request's route,
 * project and field names, never the user ID or the reason; the deletion's own ID is in the answer.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { actorName } from '../domain/audit-entry';
import { CreateDeletion, deletionView, newDeletion } from '../domain/deletion';
import { ApiError, notFound } from '../http/api-error';
import { json, type HttpEvent } from '../http/event';
import { limitParam } from '../http/limit-param';
import { jsonBody, parseWith } from '../http/validate';
import { idsToSuppress } from '../domain/suppression';
import { InvalidDeletionCursor, type DeletionStore, type IdentityStore, type ProjectStore } from '../ports';
import { adminCallerOf, isGeneratedIdShape, pathParam, requireProject, wrapAdmin, type AdminDeps } from './admin';

export const MAX_DELETIONS_LISTED = 100;

export interface DeletionsDeps extends AdminDeps {
  projects: ProjectStore;
  deletions: DeletionStore;
  clock: () => number;
}

export const DeletionsListQuery = z.object({
  limit: limitParam(MAX_DELETIONS_LISTED, 50),
  cursor: z.string().max(512, 'cursor must be at most 512 characters').optional(),
});

/** A new request about a person (a deletion, an export): its ID and who asked. */
export function personRequestOf(event: HttpEvent, nowMs: number): { id: string; requested_by: string } {
  const caller = adminCallerOf(event);
  return {
    // The request time leads the ID, so the store finds a request by its ID with one read (store/project-requests.ts).
    id: `${nowMs.toString(36)}-${randomUUID()}`,
    requested_by: actorName(
      caller.via === 'admin-token' ? { via: 'admin-token' } : { via: 'sign-in', subject: caller.subject, ...(caller.email ? { email: caller.email } : {}) },
    ),
  };
}

/** `identities`: with `suppress`, the person's IDs are suppressed before the 202 (domain/suppression.ts). */
export function createDeletionsCreateHandler(deps: DeletionsDeps & { identities: Pick<IdentityStore, 'group' | 'suppress'> }) {
  return wrapAdmin('admin-deletions-create', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const body = await jsonBody(event, CreateDeletion);
    const nowMs = deps.clock();
    const deletion = newDeletion({
      ...personRequestOf(event, nowMs),
      project_id: project.id,
      user_id: body.user_id,
      ...(body.reason !== undefined ? { reason: body.reason } : {}),
      ...(body.suppress !== undefined ? { suppress: body.suppress } : {}),
      nowMs,
    });
    // From the answer on, no event of the person's IDs is stored: the ID asked for and its group in
    // the identities table now (the run's first step suppresses the IDs it finds through the stream too).
    if (deletion.suppress) {
      const group = await deps.identities.group(project.id, deletion.user_id);
      const ids = idsToSuppress(deletion, group ? [group.canonical.id, ...group.members.map((m) => m.id)] : []);
      await deps.identities.suppress(project.id, ids, nowMs);
    }
    await deps.deletions.create(deletion);
    return json(202, { deletion: deletionView(deletion) });
  });
}

export function createDeletionsListHandler(deps: DeletionsDeps) {
  return wrapAdmin('admin-deletions-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const q = parseWith(DeletionsListQuery, event.queryStringParameters ?? {});
    try {
      const page = await deps.deletions.list(project.id, q.limit, q.cursor);
      return json(200, { deletions: page.deletions.map(deletionView), next_cursor: page.next ?? null });
    } catch (err) {
      if (err instanceof InvalidDeletionCursor) throw new ApiError(400, err.message);
      throw err;
    }
  });
}

export function createDeletionsGetHandler(deps: DeletionsDeps) {
  return wrapAdmin('admin-deletions-get', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const id = pathParam(event, 'deletion_id');
    const deletion = isGeneratedIdShape(id) ? await deps.deletions.get(project.id, id) : undefined;
    if (!deletion) throw notFound(`Deletion ${id} not found in project ${project.id}`);
    return json(200, { deletion: deletionView(deletion) });
  });
}
