import { createResultsRefreshHandler } from '../handlers/results';
import { athenaResultsQuery } from './athena';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-results-refresh', createResultsRefreshHandler, {
  resultsQuery: athenaResultsQuery,
  ...adminWiring,
});
