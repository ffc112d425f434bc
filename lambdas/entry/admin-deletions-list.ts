import { createDeletionsListHandler } from '../handlers/deletions';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-deletions-list', createDeletionsListHandler, { ...adminSignIn });
