import { createKeysDeleteHandler } from '../handlers/keys';
import { awsDeps } from './aws';

export const handler = createKeysDeleteHandler(awsDeps(['projects', 'keys', 'rateLimits', 'adminToken']));
