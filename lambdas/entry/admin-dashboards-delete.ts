import { createDashboardsDeleteHandler } from '../handlers/dashboards';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';

export const handler = lambdaHandler('admin-dashboards-delete', createDashboardsDeleteHandler, { adminToken: secretsManagerAdminToken });
