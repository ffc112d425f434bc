import { createInsightsTrendsHandler } from '../handlers/insights';
import { lambdaHandler } from './aws';
import { athenaInsightEngine } from './athena';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-insights-trends', createInsightsTrendsHandler, {
  insightEngine: athenaInsightEngine,
  ...adminWiring,
});
