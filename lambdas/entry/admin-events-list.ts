import { createEventsListHandler } from '../handlers/events-list';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';
import { athenaRecentEvents } from './athena';

export const handler = lambdaHandler('admin-events-list', createEventsListHandler, { recentEvents: athenaRecentEvents, ...adminSignIn });
