import { createExperimentsGetHandler } from '../handlers/experiments-admin';
import { awsDeps } from './aws';

export const handler = createExperimentsGetHandler(awsDeps(['projects', 'experiments', 'adminToken']));
