import { createDashboardsDeleteHandler } from '../handlers/dashboards';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-dashboards-delete', createDashboardsDeleteHandler, { ...adminWiring });
