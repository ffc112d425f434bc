import { createUsersGetHandler } from '../handlers/users';
import { awsDeps } from './aws';

export const handler = createUsersGetHandler(awsDeps(['projects', 'identities', 'adminToken']));
