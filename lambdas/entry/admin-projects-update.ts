import { createProjectsUpdateHandler } from '../handlers/projects';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';

export const handler = lambdaHandler('admin-projects-update', createProjectsUpdateHandler, { adminToken: secretsManagerAdminToken });
