import { createResultsRefreshHandler } from '../handlers/results';
import { awsDeps } from './aws';

export const handler = createResultsRefreshHandler(awsDeps(['projects', 'experiments', 'results', 'resultsQuery', 'adminToken']));
