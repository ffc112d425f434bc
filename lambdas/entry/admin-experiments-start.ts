import { createExperimentsStartHandler } from '../handlers/experiments-admin';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-experiments-start', createExperimentsStartHandler, { ...adminWiring });
