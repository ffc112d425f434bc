import { createExperimentsAssignHandler } from '../handlers/experiments';
import { lambdaHandler, withCatalog } from './aws';

export const handler = lambdaHandler('experiments-assign', (deps) => createExperimentsAssignHandler(withCatalog(deps)));
