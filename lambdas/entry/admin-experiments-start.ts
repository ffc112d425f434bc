import { createExperimentsStartHandler } from '../handlers/experiments-admin';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-experiments-start', createExperimentsStartHandler, { ...adminSignIn });
