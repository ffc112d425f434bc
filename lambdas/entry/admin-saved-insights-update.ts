import { createSavedInsightsUpdateHandler } from '../handlers/saved-insights';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-saved-insights-update', createSavedInsightsUpdateHandler, { ...adminWiring });
