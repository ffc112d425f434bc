/** Shared plumbing of the admin API handlers (/admin/v1/*). */
import type { HttpEvent } from '../http/event';
import { ApiError, notFound } from '../http/api-error';
import { requireAdmin } from '../http/admin-auth';
import { wrap } from '../http/wrap';
import type { HttpResult } from '../http/event';
import type { Project, ProjectStore } from '../ports';

export interface AdminDeps {
  adminToken: () => Promise<string>;
}

export function wrapAdmin(route: string, deps: AdminDeps, handler: (event: HttpEvent) => Promise<HttpResult>) {
  return wrap(handler, { route, surface: 'admin', authenticate: requireAdmin(deps.adminToken) });
}

export function pathParam(event: HttpEvent, name: string): string {
  const value = event.pathParameters?.[name];
  if (!value) throw new ApiError(400, `Missing path parameter ${name}`);
  return value;
}

/** Tally's own IDs (projects, keys, experiments) are 36-byte UUIDs; this leaves room for other forms. */
const MAX_GENERATED_ID_BYTES = 64;

/**
 * A path parameter naming something Tally created. A longer value names nothing, and used as a key
 * it could exceed DynamoDB's key size (a ValidationException, a 500): it is "not found" without a read.
 */
export function isGeneratedIdShape(id: string): boolean {
  return Buffer.byteLength(id, 'utf8') <= MAX_GENERATED_ID_BYTES;
}

export async function requireProject(projects: ProjectStore, event: HttpEvent): Promise<Project> {
  const id = pathParam(event, 'project_id');
  const project = isGeneratedIdShape(id) ? await projects.get(id) : undefined;
  if (!project) throw notFound(`Project ${id} not found`);
  return project;
}
