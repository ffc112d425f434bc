import { createExperimentsCreateHandler } from '../handlers/experiments-admin';
import { lambdaHandler } from './aws';

export const handler = lambdaHandler('admin-experiments-create', createExperimentsCreateHandler);
