/**
 * Every route of the API, declared once. The CDK stack builds API Gateway resources and one Lambda
 * per route from this list (entry file lambdas/entry/<name>.ts); the local server dispatches with it.
 * Plain data: imports nothing.
 */
export type RouteAuth = 'api-key' | 'admin';

export interface Route {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway resource path; {param} segments become pathParameters. */
  path: string;
  auth: RouteAuth;
}

export const ROUTES = [
  { name: 'ingest-v1', method: 'POST', path: '/v1/events', auth: 'api-key' },
  { name: 'ingest-api', method: 'POST', path: '/api/events', auth: 'api-key' },
  { name: 'admin-projects-create', method: 'POST', path: '/admin/v1/projects', auth: 'admin' },
  { name: 'admin-projects-list', method: 'GET', path: '/admin/v1/projects', auth: 'admin' },
  { name: 'admin-keys-create', method: 'POST', path: '/admin/v1/projects/{project_id}/keys', auth: 'admin' },
  { name: 'admin-keys-list', method: 'GET', path: '/admin/v1/projects/{project_id}/keys', auth: 'admin' },
  { name: 'admin-keys-delete', method: 'DELETE', path: '/admin/v1/projects/{project_id}/keys/{key_id}', auth: 'admin' },
  { name: 'admin-events-list', method: 'GET', path: '/admin/v1/projects/{project_id}/events', auth: 'admin' },
  { name: 'admin-users-get', method: 'GET', path: '/admin/v1/projects/{project_id}/users/{id}', auth: 'admin' },
  { name: 'experiments-assign', method: 'GET', path: '/v1/experiments', auth: 'api-key' },
  { name: 'experiments-configs', method: 'GET', path: '/v1/experiments/configs', auth: 'api-key' },
  { name: 'admin-experiments-create', method: 'POST', path: '/admin/v1/projects/{project_id}/experiments', auth: 'admin' },
  { name: 'admin-experiments-list', method: 'GET', path: '/admin/v1/projects/{project_id}/experiments', auth: 'admin' },
  { name: 'admin-experiments-get', method: 'GET', path: '/admin/v1/projects/{project_id}/experiments/{id}', auth: 'admin' },
  { name: 'admin-experiments-update', method: 'PATCH', path: '/admin/v1/projects/{project_id}/experiments/{id}', auth: 'admin' },
  { name: 'admin-experiments-start', method: 'POST', path: '/admin/v1/projects/{project_id}/experiments/{id}/start', auth: 'admin' },
  { name: 'admin-experiments-stop', method: 'POST', path: '/admin/v1/projects/{project_id}/experiments/{id}/stop', auth: 'admin' },
  { name: 'admin-results-get', method: 'GET', path: '/admin/v1/projects/{project_id}/experiments/{id}/results', auth: 'admin' },
  { name: 'admin-results-refresh', method: 'POST', path: '/admin/v1/projects/{project_id}/experiments/{id}/results/refresh', auth: 'admin' },
] as const satisfies readonly Route[];

export type RouteName = (typeof ROUTES)[number]['name'];
