import { createSavedInsightsGetHandler } from '../handlers/saved-insights';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-saved-insights-get', createSavedInsightsGetHandler, { ...adminWiring });
