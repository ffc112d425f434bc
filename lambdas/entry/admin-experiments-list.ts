import { createExperimentsListHandler } from '../handlers/experiments-admin';
import { awsDeps } from './aws';

export const handler = createExperimentsListHandler(awsDeps(['projects', 'experiments', 'adminToken']));
