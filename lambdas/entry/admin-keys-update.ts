import { createKeysUpdateHandler } from '../handlers/keys';
import { lambdaHandler } from './aws';
import { adminWiring } from './admin-wiring';

export const handler = lambdaHandler('admin-keys-update', createKeysUpdateHandler, { ...adminWiring });
