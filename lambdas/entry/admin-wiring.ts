/**
 * What every admin entry passes lambdaHandler: its two ways of signing in (lambdas/entry/secrets.ts)
 * and the admin stores (lambdas/entry/admin-stores.ts). Each entry's manifest line decides which of
 * them it builds (awsDeps); the public routes import neither module.
 */
import { adminStores } from './admin-stores';
import { adminSignIn } from './secrets';

export const adminWiring = { ...adminSignIn, ...adminStores } as const;
