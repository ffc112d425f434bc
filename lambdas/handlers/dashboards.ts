/**
 * Dashboards (docs/api.md "Dashboards"): /admin/v1/projects/{project_id}/dashboards and
 * /dashboards/{dashboard_id}: create, list, get (with each tile's saved insight, or null for one
 * deleted since), update (name, tiles, range override) and delete. The tiles a request names must be
 * saved insights of the project; the count per project is held by a conditional write.
 */
import { randomUUID } from 'node:crypto';
import { CreateDashboard, DASHBOARD_LIMITS, UpdateDashboard, type Dashboard } from '../domain/insights/dashboard';
import { savedDefinitionProblem } from '../domain/insights/saved-insight';
import { ApiError, notFound } from '../http/api-error';
import { empty, json, type HttpEvent } from '../http/event';
import { jsonBody } from '../http/validate';
import type { DashboardStore, Project, ProjectStore, SavedInsightStore } from '../ports';
import { isGeneratedIdShape, pathParam, requireProject, wrapAdmin, type AdminDeps } from './admin';

export interface DashboardsDeps extends AdminDeps {
  projects: ProjectStore;
  dashboards: DashboardStore;
  clock: () => number;
}

export interface DashboardTilesDeps extends DashboardsDeps {
  savedInsights: SavedInsightStore;
}

const view = ({ project_id: _p, ...dashboard }: Dashboard) => dashboard;

async function requireDashboard(deps: DashboardsDeps, event: HttpEvent): Promise<{ project: Project; dashboard: Dashboard }> {
  const project = await requireProject(deps.projects, event);
  const id = pathParam(event, 'dashboard_id');
  const dashboard = isGeneratedIdShape(id) ? await deps.dashboards.get(project.id, id) : undefined;
  if (!dashboard) throw notFound(`Dashboard ${id} not found in project ${project.id}`);
  return { project, dashboard };
}

/** A 400 naming each tile that is not a saved insight of the project (the project's own list: other projects' IDs find nothing). */
async function checkTiles(deps: DashboardTilesDeps, projectId: string, tiles: Dashboard['tiles']): Promise<void> {
  if (tiles.length === 0) return;
  const known = new Set((await deps.savedInsights.list(projectId)).map((i) => i.id));
  const missing = tiles.flatMap((t, i) =>
    known.has(t.saved_insight_id) ? [] : [`tiles.${i}.saved_insight_id: no saved insight ${t.saved_insight_id} in this project`],
  );
  if (missing.length) throw new ApiError(400, `${missing.join('; ')}: list the saved insights with GET …/saved-insights`);
}

export function createDashboardsCreateHandler(deps: DashboardTilesDeps) {
  return wrapAdmin('admin-dashboards-create', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const body = await jsonBody(event, CreateDashboard);
    await checkTiles(deps, project.id, body.tiles);
    const now = new Date(deps.clock()).toISOString();
    const dashboard: Dashboard = { id: randomUUID(), project_id: project.id, ...body, created_at: now, updated_at: now };
    // One conditional write decides (the store's slots): parallel creates never pass the limit together.
    if (!(await deps.dashboards.create(dashboard, DASHBOARD_LIMITS.perProject))) {
      throw new ApiError(409, `The project has ${DASHBOARD_LIMITS.perProject} dashboards, the most it can keep: delete one first`);
    }
    return json(201, view(dashboard));
  });
}

export function createDashboardsListHandler(deps: DashboardsDeps) {
  return wrapAdmin('admin-dashboards-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    return json(200, { dashboards: (await deps.dashboards.list(project.id)).map(view) });
  });
}

export function createDashboardsGetHandler(deps: DashboardTilesDeps) {
  return wrapAdmin('admin-dashboards-get', deps, async (event) => {
    const { project, dashboard } = await requireDashboard(deps, event);
    const insights = new Map((await deps.savedInsights.list(project.id)).map((i) => [i.id, i]));
    // Each tile with its saved insight as the saved-insights routes show it; null once it was deleted.
    const tiles = dashboard.tiles.map((t) => {
      const insight = insights.get(t.saved_insight_id);
      if (!insight) return { ...t, insight: null };
      const { project_id: _p, ...shown } = insight;
      return { ...t, insight: { ...shown, problem: savedDefinitionProblem(insight.kind, insight.definition) } };
    });
    return json(200, { ...view(dashboard), tiles });
  });
}

export function createDashboardsUpdateHandler(deps: DashboardTilesDeps) {
  return wrapAdmin('admin-dashboards-update', deps, async (event) => {
    const { project, dashboard } = await requireDashboard(deps, event);
    const body = await jsonBody(event, UpdateDashboard);
    if (body.tiles) {
      // Tiles kept from before may name insights deleted since: only the newly named ones must exist.
      const before = new Set(dashboard.tiles.map((t) => t.saved_insight_id));
      await checkTiles(
        deps,
        project.id,
        body.tiles.filter((t) => !before.has(t.saved_insight_id)),
      );
    }
    const updated: Dashboard = {
      ...dashboard,
      name: body.name ?? dashboard.name,
      tiles: body.tiles ?? dashboard.tiles,
      range_override: body.range_override === undefined ? dashboard.range_override : body.range_override,
      updated_at: new Date(deps.clock()).toISOString(),
    };
    if (!(await deps.dashboards.put(updated))) throw notFound(`Dashboard ${dashboard.id} not found in project ${project.id}`);
    return json(200, view(updated));
  });
}

export function createDashboardsDeleteHandler(deps: DashboardsDeps) {
  return wrapAdmin('admin-dashboards-delete', deps, async (event) => {
    const { project, dashboard } = await requireDashboard(deps, event);
    await deps.dashboards.delete(project.id, dashboard.id);
    return empty(204);
  });
}
