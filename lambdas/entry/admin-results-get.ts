import { createResultsGetHandler } from '../handlers/results';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

// Reading stored results runs no query: this function is granted no Athena access.
export const handler = lambdaHandler('admin-results-get', createResultsGetHandler, {
  ...adminWiring,
});
