import { createExperimentsUpdateHandler } from '../handlers/experiments-admin';
import { awsDeps } from './aws';

export const handler = createExperimentsUpdateHandler(awsDeps(['projects', 'experiments', 'adminToken']));
