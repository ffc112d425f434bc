import { createEventsListHandler } from '../handlers/events-list';
import { awsDeps } from './aws';

export const handler = createEventsListHandler(awsDeps(['projects', 'ledger', 'adminToken']));
