import { createExperimentsStopHandler } from '../handlers/experiments-admin';
import { lambdaHandler } from './aws';
import { secretsManagerAdminToken } from './secrets';

export const handler = lambdaHandler('admin-experiments-stop', createExperimentsStopHandler, { adminToken: secretsManagerAdminToken });
