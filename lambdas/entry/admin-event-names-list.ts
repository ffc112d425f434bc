import { createEventNamesListHandler } from '../handlers/event-names-list';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';
import { athenaRecentEvents } from './athena';

export const handler = lambdaHandler('admin-event-names-list', createEventNamesListHandler, {
  recentEvents: athenaRecentEvents,
  ...adminSignIn,
});
