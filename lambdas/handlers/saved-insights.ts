/**
 * Saved insights (issue 25; docs/api.md "Saved insights"): /admin/v1/projects/{project_id}/saved-insights
 * and /saved-insights/{insight_id}: create, list, get, update (name, definition) and delete. A
 * definition is checked with its kind's schema, so a saved insight always runs.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { INSIGHT_KINDS, type InsightKind } from '../domain/insights/kinds';
import { CreateSavedInsight, SAVED_INSIGHT_LIMITS, savedDefinitionProblem, UpdateSavedInsight, type SavedInsight } from '../domain/insights/saved-insight';
import { ApiError, notFound } from '../http/api-error';
import { empty, json, type HttpEvent } from '../http/event';
import { jsonBody, parseWith } from '../http/validate';
import type { Project, ProjectStore, SavedInsightStore } from '../ports';
import { isGeneratedIdShape, pathParam, requireProject, wrapAdmin, type AdminDeps } from './admin';

export interface SavedInsightsDeps extends AdminDeps {
  projects: ProjectStore;
  savedInsights: SavedInsightStore;
  clock: () => number;
}

/** An insight as the API shows it, with what keeps it from running today (null when it runs). */
const view = ({ project_id: _p, ...insight }: SavedInsight) => ({ ...insight, problem: savedDefinitionProblem(insight.kind, insight.definition) });

async function requireInsight(deps: SavedInsightsDeps, event: HttpEvent): Promise<{ project: Project; insight: SavedInsight }> {
  const project = await requireProject(deps.projects, event);
  const id = pathParam(event, 'insight_id');
  const insight = isGeneratedIdShape(id) ? await deps.savedInsights.get(project.id, id) : undefined;
  if (!insight) throw notFound(`Saved insight ${id} not found in project ${project.id}`);
  return { project, insight };
}

export function createSavedInsightsCreateHandler(deps: SavedInsightsDeps) {
  return wrapAdmin('admin-saved-insights-create', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const body = await jsonBody(event, CreateSavedInsight);
    const now = new Date(deps.clock()).toISOString();
    const insight: SavedInsight = { id: randomUUID(), project_id: project.id, ...body, created_at: now, updated_at: now };
    // One conditional write decides (the store's slots): parallel creates never pass the limit together.
    if (!(await deps.savedInsights.create(insight, SAVED_INSIGHT_LIMITS.perProject))) {
      throw new ApiError(409, `The project has ${SAVED_INSIGHT_LIMITS.perProject} saved insights, the most it can keep: delete one first`);
    }
    return json(201, view(insight));
  });
}

export function createSavedInsightsListHandler(deps: SavedInsightsDeps) {
  return wrapAdmin('admin-saved-insights-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    return json(200, { saved_insights: (await deps.savedInsights.list(project.id)).map(view) });
  });
}

export function createSavedInsightsGetHandler(deps: SavedInsightsDeps) {
  return wrapAdmin('admin-saved-insights-get', deps, async (event) => json(200, view((await requireInsight(deps, event)).insight)));
}

export function createSavedInsightsUpdateHandler(deps: SavedInsightsDeps) {
  return wrapAdmin('admin-saved-insights-update', deps, async (event) => {
    const { insight } = await requireInsight(deps, event);
    const body = await jsonBody(event, UpdateSavedInsight);
    // A new definition is checked with the insight's kind's schema (its field names under definition.).
    const definition =
      body.definition === undefined
        ? insight.definition
        : parseWith(z.object({ definition: (INSIGHT_KINDS[insight.kind] as InsightKind<unknown>).definition }), { definition: body.definition }).definition;
    const updated: SavedInsight = { ...insight, name: body.name ?? insight.name, definition, updated_at: new Date(deps.clock()).toISOString() };
    if (!(await deps.savedInsights.put(updated))) throw notFound(`Saved insight ${insight.id} not found in project ${insight.project_id}`);
    return json(200, view(updated));
  });
}

export function createSavedInsightsDeleteHandler(deps: SavedInsightsDeps) {
  return wrapAdmin('admin-saved-insights-delete', deps, async (event) => {
    const { project, insight } = await requireInsight(deps, event);
    await deps.savedInsights.delete(project.id, insight.id);
    return empty(204);
  });
}
