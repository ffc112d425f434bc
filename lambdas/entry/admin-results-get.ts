import { createResultsGetHandler } from '../handlers/results';
import { lambdaHandler, notWired } from './aws';
import { secretsManagerAdminToken } from './secrets';

// Reading stored results runs no query: this function is granted no Athena access.
export const handler = lambdaHandler('admin-results-get', (deps) => createResultsGetHandler({ ...deps, resultsQuery: notWired('resultsQuery') }), {
  adminToken: secretsManagerAdminToken,
});
