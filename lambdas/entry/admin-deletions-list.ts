import { createDeletionsListHandler } from '../handlers/deletions';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-deletions-list', createDeletionsListHandler, { ...adminWiring });
