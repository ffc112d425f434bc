import { createInsightsTrendsHandler } from '../handlers/insights';
import { lambdaHandler } from './aws';
import { athenaInsightEngine } from './athena';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-insights-trends', createInsightsTrendsHandler, {
  insightEngine: athenaInsightEngine,
  ...adminSignIn,
});
