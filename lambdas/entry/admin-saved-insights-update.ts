import { createSavedInsightsUpdateHandler } from '../handlers/saved-insights';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-saved-insights-update', createSavedInsightsUpdateHandler, { ...adminSignIn });
