import { createInsightsFunnelsHandler } from '../handlers/insights';
import { lambdaHandler } from './aws';
import { athenaInsightEngine } from './athena';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-insights-funnels', createInsightsFunnelsHandler, {
  insightEngine: athenaInsightEngine,
  ...adminWiring,
});
