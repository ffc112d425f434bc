import { createKeysCreateHandler } from '../handlers/keys';
import { awsDeps } from './aws';

export const handler = createKeysCreateHandler(awsDeps(['projects', 'keys', 'rateLimits', 'adminToken']));
