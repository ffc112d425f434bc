import { createInsightsRetentionHandler } from '../handlers/insights';
import { lambdaHandler } from './aws';
import { athenaInsightEngine } from './athena';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-insights-retention', createInsightsRetentionHandler, {
  insightEngine: athenaInsightEngine,
  ...adminWiring,
});
