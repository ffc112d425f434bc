import { createSavedInsightsGetHandler } from '../handlers/saved-insights';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-saved-insights-get', createSavedInsightsGetHandler, { ...adminSignIn });
