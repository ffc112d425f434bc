import { createDashboardsListHandler } from '../handlers/dashboards';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-dashboards-list', createDashboardsListHandler, { ...adminSignIn });
