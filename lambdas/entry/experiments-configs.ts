import { createExperimentsConfigsHandler } from '../handlers/experiments';
import { lambdaHandler, withCatalog } from './aws';

export const handler = lambdaHandler('experiments-configs', (deps) => createExperimentsConfigsHandler(withCatalog(deps)));
