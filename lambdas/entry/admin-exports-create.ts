import { createExportsCreateHandler } from '../handlers/exports';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-exports-create', createExportsCreateHandler, { ...adminSignIn });
