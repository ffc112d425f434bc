import { createResultsGetHandler } from '../handlers/results';
import { awsDeps } from './aws';

export const handler = createResultsGetHandler(awsDeps(['projects', 'experiments', 'results', 'adminToken']));
