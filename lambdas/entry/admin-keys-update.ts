import { createKeysUpdateHandler } from '../handlers/keys';
import { lambdaHandler } from './aws';
import { adminSignIn } from './secrets';

export const handler = lambdaHandler('admin-keys-update', createKeysUpdateHandler, { ...adminSignIn });
