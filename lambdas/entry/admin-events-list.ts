import { createEventsListHandler } from '../handlers/events-list';
import { lambdaHandler } from './aws';

export const handler = lambdaHandler('admin-events-list', createEventsListHandler);
