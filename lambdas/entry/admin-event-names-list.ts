import { createEventNamesListHandler } from '../handlers/event-names-list';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';
import { athenaRecentEvents } from './athena';

export const handler = lambdaHandler('admin-event-names-list', createEventNamesListHandler, {
  recentEvents: athenaRecentEvents,
  ...adminWiring,
});
