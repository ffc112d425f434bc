import { createInsightsQueryGetHandler } from '../handlers/insights';
import { lambdaHandler } from './aws';
import { athenaInsightEngine } from './athena';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-insights-query-get', createInsightsQueryGetHandler, {
  insightEngine: athenaInsightEngine,
  ...adminSignIn,
});
