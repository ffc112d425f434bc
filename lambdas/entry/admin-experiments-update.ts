import { createExperimentsUpdateHandler } from '../handlers/experiments-admin';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';

export const handler = lambdaHandler('admin-experiments-update', createExperimentsUpdateHandler, { adminToken: secretsManagerAdminToken });
