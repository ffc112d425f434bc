import { createDeletionsGetHandler } from '../handlers/deletions';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-deletions-get', createDeletionsGetHandler, { ...adminWiring });
