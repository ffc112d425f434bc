import { createInsightsFunnelsHandler } from '../handlers/insights';
import { lambdaHandler } from './aws';
import { athenaInsightEngine } from './athena';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-insights-funnels', createInsightsFunnelsHandler, {
  insightEngine: athenaInsightEngine,
  ...adminSignIn,
});
