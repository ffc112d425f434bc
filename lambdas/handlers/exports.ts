/**
 * A person's export (docs/api.md "Exports", docs/decisions/erasure.md "Export"): POST
 * /admin/v1/projects/{project_id}/exports records the request (202); the compaction job's runs carry
 * it out (services/export-people.ts); GET lists a project's exports, newest first, and GET
 * .../exports/{export_id} shows one, with a download link signed at that moment once it is done. The
 * audit log records the route, project and field names, never the user ID.
 */
import { CreateExport, newExport, type ExportView, type PersonExport } from '../domain/person-export';
import { ApiError, notFound } from '../http/api-error';
import { json } from '../http/event';
import { jsonBody, parseWith } from '../http/validate';
import { InvalidDeletionCursor, type ExportFiles, type ExportStore, type ProjectStore } from '../ports';
import { isGeneratedIdShape, pathParam, requireProject, wrapAdmin, type AdminDeps } from './admin';
import { DeletionsListQuery, personRequestOf } from './deletions';

export interface ExportsDeps extends AdminDeps {
  projects: ProjectStore;
  exports: ExportStore;
  clock: () => number;
}

export interface ExportsReadDeps extends ExportsDeps {
  exportFiles: ExportFiles;
}

export function createExportsCreateHandler(deps: ExportsDeps) {
  return wrapAdmin('admin-exports-create', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const body = await jsonBody(event, CreateExport);
    const nowMs = deps.clock();
    const request = newExport({ ...personRequestOf(event, nowMs), project_id: project.id, user_id: body.user_id, nowMs });
    await deps.exports.create(request);
    return json(202, { export: request });
  });
}

/** An export as the API shows it: once done, with a link signed now (never stored: it would outlive its credentials). */
async function view(deps: ExportsReadDeps, e: PersonExport): Promise<ExportView> {
  if (e.state !== 'done') return e;
  const link = await deps.exportFiles.link(e.project_id, e.id, deps.clock());
  return { ...e, download_url: link.url, download_expires_at: link.expires_at };
}

export function createExportsListHandler(deps: ExportsReadDeps) {
  return wrapAdmin('admin-exports-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const q = parseWith(DeletionsListQuery, event.queryStringParameters ?? {});
    try {
      const page = await deps.exports.list(project.id, q.limit, q.cursor);
      return json(200, { exports: await Promise.all(page.exports.map((e) => view(deps, e))), next_cursor: page.next ?? null });
    } catch (err) {
      if (err instanceof InvalidDeletionCursor) throw new ApiError(400, err.message);
      throw err;
    }
  });
}

export function createExportsGetHandler(deps: ExportsReadDeps) {
  return wrapAdmin('admin-exports-get', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const id = pathParam(event, 'export_id');
    const found = isGeneratedIdShape(id) ? await deps.exports.get(project.id, id) : undefined;
    if (!found) throw notFound(`Export ${id} not found in project ${project.id}`);
    return json(200, { export: await view(deps, found) });
  });
}
