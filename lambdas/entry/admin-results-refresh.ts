import { createResultsRefreshHandler } from '../handlers/results';
import { lambdaHandler } from './aws';

export const handler = lambdaHandler('admin-results-refresh', createResultsRefreshHandler);
