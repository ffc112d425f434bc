import { createKeysListHandler } from '../handlers/keys';
import { awsDeps } from './aws';

export const handler = createKeysListHandler(awsDeps(['projects', 'keys', 'adminToken']));
