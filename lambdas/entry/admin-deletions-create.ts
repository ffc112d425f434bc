import { createDeletionsCreateHandler } from '../handlers/deletions';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-deletions-create', createDeletionsCreateHandler, { ...adminWiring });
