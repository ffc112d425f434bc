import { createExportsCreateHandler } from '../handlers/exports';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-exports-create', createExportsCreateHandler, { ...adminWiring });
