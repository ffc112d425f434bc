import { createKeysCreateHandler } from '../handlers/keys';
import { lambdaHandler } from './aws';

export const handler = lambdaHandler('admin-keys-create', createKeysCreateHandler);
