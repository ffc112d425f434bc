import { createExperimentsGetHandler } from '../handlers/experiments-admin';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';

export const handler = lambdaHandler('admin-experiments-get', createExperimentsGetHandler, { adminToken: secretsManagerAdminToken });
