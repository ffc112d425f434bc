import { createExperimentsStopHandler } from '../handlers/experiments-admin';
import { awsDeps } from './aws';

export const handler = createExperimentsStopHandler(awsDeps(['projects', 'experiments', 'adminToken']));
