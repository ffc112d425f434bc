/** The analyst views' CloudFormation custom resource (run at deploy), not an HTTP route. */
import { createAnalyticsViewsHandler } from '../handlers/analytics-views';
import { athenaAnalyticsViews } from './athena';
import { lambdaHandler } from './aws';

export const handler = lambdaHandler('analytics-views', createAnalyticsViewsHandler, { analyticsViews: athenaAnalyticsViews });
