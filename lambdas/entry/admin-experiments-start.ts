import { createExperimentsStartHandler } from '../handlers/experiments-admin';
import { lambdaHandler } from './aws';

export const handler = lambdaHandler('admin-experiments-start', createExperimentsStartHandler);
