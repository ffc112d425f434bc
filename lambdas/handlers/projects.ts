/** POST /admin/v1/projects, GET /admin/v1/projects and PATCH /admin/v1/projects/{project_id}. */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { PROJECT_NAME_LENGTH } from '../domain/project-fields';
import { textRule } from '../domain/client-text-schema';
import { timeZoneField } from '../domain/time-zone';
import { notFound } from '../http/api-error';
import { json } from '../http/event';
import { jsonBody } from '../http/validate';
import type { ProjectStore } from '../ports';
import { requireProject, wrapAdmin, type AdminDeps } from './admin';

const projectName = (required: string) =>
  textRule(
    z.string({ error: required }).trim().min(1, 'name must not be empty').max(PROJECT_NAME_LENGTH, `name is longer than ${PROJECT_NAME_LENGTH} characters`),
    'name',
  );

export const CreateProject = z.object({
  name: projectName('name is required and must be a string'),
  /** The zone insights count days in (docs/api.md "Projects"); UTC when absent. */
  time_zone: timeZoneField('time_zone').optional(),
});

export const UpdateProject = z
  .object({
    name: projectName('name must be a string').optional(),
    time_zone: timeZoneField('time_zone').optional(),
  })
  .refine((body) => body.name !== undefined || body.time_zone !== undefined, {
    error: 'send name and/or time_zone to change, for example {"time_zone": "America/New_York"}',
  });

export interface ProjectDeps extends AdminDeps {
  projects: ProjectStore;
  clock: () => number;
}

export function createProjectsCreateHandler(deps: ProjectDeps) {
  return wrapAdmin('admin-projects-create', deps, async (event) => {
    const { name, time_zone } = await jsonBody(event, CreateProject);
    // Without a time_zone the project has none stored and counts in UTC (DEFAULT_TIME_ZONE): its answers stay as they were.
    const project = { id: randomUUID(), name, created_at: new Date(deps.clock()).toISOString(), ...(time_zone === undefined ? {} : { time_zone }) };
    await deps.projects.create(project);
    return json(201, project);
  });
}

export function createProjectsListHandler(deps: ProjectDeps) {
  return wrapAdmin('admin-projects-list', deps, async () => json(200, { projects: await deps.projects.list() }));
}

export function createProjectsUpdateHandler(deps: ProjectDeps) {
  return wrapAdmin('admin-projects-update', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const changes = await jsonBody(event, UpdateProject);
    const updated = await deps.projects.update(project.id, changes);
    if (!updated) throw notFound(`Project ${project.id} not found`);
    return json(200, updated);
  });
}
