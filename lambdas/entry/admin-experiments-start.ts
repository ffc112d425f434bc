import { createExperimentsStartHandler } from '../handlers/experiments-admin';
import { awsDeps } from './aws';

export const handler = createExperimentsStartHandler(awsDeps(['projects', 'experiments', 'adminToken']));
