import { createExperimentsCreateHandler } from '../handlers/experiments-admin';
import { awsDeps } from './aws';

export const handler = createExperimentsCreateHandler(awsDeps(['projects', 'experiments', 'adminToken']));
