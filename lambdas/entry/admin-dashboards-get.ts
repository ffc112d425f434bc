import { createDashboardsGetHandler } from '../handlers/dashboards';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-dashboards-get', createDashboardsGetHandler, { ...adminSignIn });
