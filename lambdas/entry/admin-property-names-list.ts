import { createPropertyNamesListHandler } from '../handlers/property-names-list';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';
import { athenaRecentEvents } from './athena';

export const handler = lambdaHandler('admin-property-names-list', createPropertyNamesListHandler, {
  recentEvents: athenaRecentEvents,
  ...adminWiring,
});
