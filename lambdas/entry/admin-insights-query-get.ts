import { createInsightsQueryGetHandler } from '../handlers/insights';
import { lambdaHandler } from './aws';
import { athenaInsightEngine } from './athena';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-insights-query-get', createInsightsQueryGetHandler, {
  insightEngine: athenaInsightEngine,
  ...adminWiring,
});
