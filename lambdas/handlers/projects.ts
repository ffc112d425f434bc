/** POST /admin/v1/projects and GET /admin/v1/projects. */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { PROJECT_NAME_LENGTH } from '../domain/project-fields';
import { textRule } from '../domain/client-text-schema';
import { json } from '../http/event';
import { jsonBody } from '../http/validate';
import type { ProjectStore } from '../ports';
import { wrapAdmin, type AdminDeps } from './admin';

export const CreateProject = z.object({
  name: textRule(
    z
      .string({ error: 'name is required and must be a string' })
      .trim()
      .min(1, 'name must not be empty')
      .max(PROJECT_NAME_LENGTH, `name is longer than ${PROJECT_NAME_LENGTH} characters`),
    'name',
  ),
});

export interface ProjectDeps extends AdminDeps {
  projects: ProjectStore;
  clock: () => number;
}

export function createProjectsCreateHandler(deps: ProjectDeps) {
  return wrapAdmin('admin-projects-create', deps, async (event) => {
    const { name } = await jsonBody(event, CreateProject);
    const project = { id: randomUUID(), name, created_at: new Date(deps.clock()).toISOString() };
    await deps.projects.create(project);
    return json(201, project);
  });
}

export function createProjectsListHandler(deps: ProjectDeps) {
  return wrapAdmin('admin-projects-list', deps, async () => json(200, { projects: await deps.projects.list() }));
}
