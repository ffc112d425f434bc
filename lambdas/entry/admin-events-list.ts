import { createEventsListHandler } from '../handlers/events-list';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';
import { athenaRecentEvents } from './athena';

export const handler = lambdaHandler('admin-events-list', createEventsListHandler, { recentEvents: athenaRecentEvents, ...adminWiring });
