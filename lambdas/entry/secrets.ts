/** The admin token from Secrets Manager. Only the admin functions import this (lambdaHandler), so the public ones do not load its client. */
import { cachedSecretReader } from '../adapters/secret-reader';
import type { Wiring } from './aws';

export const secretsManagerAdminToken: Wiring<'adminToken'> = (env) => cachedSecretReader(env.ADMIN_TOKEN_SECRET_ARN, 'The admin token secret');
