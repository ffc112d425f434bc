import { createDeletionsCreateHandler } from '../handlers/deletions';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-deletions-create', createDeletionsCreateHandler, { ...adminSignIn });
