/** Route name to handler, for the local server. On AWS each entry file builds just its own. */
import type { Deps } from '../deps';
import type { HttpHandler } from '../http/wrap';
import type { RouteName } from '../routes';
import { createEventNamesListHandler } from './event-names-list';
import { createPropertyNamesListHandler } from './property-names-list';
import { createEventsListHandler } from './events-list';
import { createIngestHandler } from './ingest';
import { createKeysCreateHandler, createKeysDeleteHandler, createKeysListHandler, createKeysUpdateHandler } from './keys';
import { createPlanHandler } from './plan';
import { createInsightsFunnelsHandler, createInsightsQueryGetHandler, createInsightsRetentionHandler, createInsightsTrendsHandler } from './insights';
import {
  createSavedInsightsCreateHandler,
  createSavedInsightsDeleteHandler,
  createSavedInsightsGetHandler,
  createSavedInsightsListHandler,
  createSavedInsightsUpdateHandler,
} from './saved-insights';
import {
  createDashboardsCreateHandler,
  createDashboardsDeleteHandler,
  createDashboardsGetHandler,
  createDashboardsListHandler,
  createDashboardsUpdateHandler,
} from './dashboards';
import { createUsersGetHandler, createUsersListHandler } from './users';
import { createResultsGetHandler, createResultsRefreshHandler } from './results';
import { ExperimentCatalog } from '../services/experiment-catalog';
import { createExperimentsAssignHandler, createExperimentsConfigsHandler } from './experiments';
import {
  createExperimentsCreateHandler,
  createExperimentsGetHandler,
  createExperimentsListHandler,
  createExperimentsStartHandler,
  createExperimentsStopHandler,
  createExperimentsUpdateHandler,
} from './experiments-admin';
import { createAuditListHandler } from './audit';
import { createDeletionsCreateHandler, createDeletionsGetHandler, createDeletionsListHandler } from './deletions';
import { createExportsCreateHandler, createExportsGetHandler, createExportsListHandler } from './exports';
import { createProjectsCreateHandler, createProjectsListHandler, createProjectsUpdateHandler } from './projects';

export function createHandlers(deps: Deps): Record<RouteName, HttpHandler> {
  const catalog = new ExperimentCatalog(deps.experiments, deps.experimentsCacheMs, deps.clock);
  return {
    'ingest-v1': createIngestHandler('v1', { ...deps, catalog }),
    'ingest-api': createIngestHandler('api', { ...deps, catalog }),
    'admin-projects-create': createProjectsCreateHandler(deps),
    'admin-projects-list': createProjectsListHandler(deps),
    'admin-projects-update': createProjectsUpdateHandler(deps),
    'admin-keys-create': createKeysCreateHandler(deps),
    'admin-keys-list': createKeysListHandler(deps),
    'admin-keys-update': createKeysUpdateHandler(deps),
    'admin-keys-delete': createKeysDeleteHandler(deps),
    'admin-events-list': createEventsListHandler(deps),
    'admin-event-names-list': createEventNamesListHandler(deps),
    'admin-property-names-list': createPropertyNamesListHandler(deps),
    'admin-users-list': createUsersListHandler(deps),
    'admin-users-get': createUsersGetHandler(deps),
    'experiments-assign': createExperimentsAssignHandler({ ...deps, catalog }),
    'experiments-configs': createExperimentsConfigsHandler({ catalog }),
    'admin-experiments-create': createExperimentsCreateHandler(deps),
    'admin-experiments-list': createExperimentsListHandler(deps),
    'admin-experiments-get': createExperimentsGetHandler(deps),
    'admin-experiments-update': createExperimentsUpdateHandler(deps),
    'admin-experiments-start': createExperimentsStartHandler(deps),
    'admin-experiments-stop': createExperimentsStopHandler(deps),
    'admin-plan-compute': createPlanHandler(deps),
    'admin-insights-trends': createInsightsTrendsHandler(deps),
    'admin-insights-funnels': createInsightsFunnelsHandler(deps),
    'admin-insights-retention': createInsightsRetentionHandler(deps),
    'admin-insights-query-get': createInsightsQueryGetHandler(deps),
    'admin-saved-insights-create': createSavedInsightsCreateHandler(deps),
    'admin-saved-insights-list': createSavedInsightsListHandler(deps),
    'admin-audit-list': createAuditListHandler(deps),
    'admin-saved-insights-get': createSavedInsightsGetHandler(deps),
    'admin-saved-insights-update': createSavedInsightsUpdateHandler(deps),
    'admin-saved-insights-delete': createSavedInsightsDeleteHandler(deps),
    'admin-dashboards-create': createDashboardsCreateHandler(deps),
    'admin-dashboards-list': createDashboardsListHandler(deps),
    'admin-dashboards-get': createDashboardsGetHandler(deps),
    'admin-dashboards-update': createDashboardsUpdateHandler(deps),
    'admin-dashboards-delete': createDashboardsDeleteHandler(deps),
    'admin-results-get': createResultsGetHandler(deps),
    'admin-results-refresh': createResultsRefreshHandler(deps),
    'admin-deletions-create': createDeletionsCreateHandler(deps),
    'admin-deletions-list': createDeletionsListHandler(deps),
    'admin-deletions-get': createDeletionsGetHandler(deps),
    'admin-exports-create': createExportsCreateHandler(deps),
    'admin-exports-list': createExportsListHandler(deps),
    'admin-exports-get': createExportsGetHandler(deps),
  };
}
