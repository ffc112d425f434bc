import { createResultsRefreshHandler } from '../handlers/results';
import { athenaResultsQuery } from './athena';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-results-refresh', createResultsRefreshHandler, {
  resultsQuery: athenaResultsQuery,
  ...adminSignIn,
});
