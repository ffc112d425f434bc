import { createExperimentsListHandler } from '../handlers/experiments-admin';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-experiments-list', createExperimentsListHandler, { ...adminWiring });
