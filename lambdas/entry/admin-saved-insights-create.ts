import { createSavedInsightsCreateHandler } from '../handlers/saved-insights';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-saved-insights-create', createSavedInsightsCreateHandler, { ...adminWiring });
