/**
 * The API key authorizer runs before every public request (its results are not cached by API
 * Gateway), so its cold start is on the request path: this entry wires only the key store, without
 * lambdaHandler() and zod, to keep the bundle small. ORIGIN_SECRET_ARN is set only with CloudFront in front.
 */
import { createAuthorizerHandler } from '../handlers/authorizer';
import { readLambdaEnv } from '../lambda-env';
import { DynamoApiKeyStore } from '../store/api-key-store';
import { documentClient } from '../store/dynamo-client';
import { cachedSecretReader } from '../adapters/secret-reader';

// Its manifest line's variables (keys: TABLE_API_KEYS) and AUTHORIZER_ENV, named here rather than
// imported so the bundle does not carry the whole manifest; test/stack/env.test.ts checks they agree.
const env = readLambdaEnv(['TABLE_API_KEYS', 'KEY_CACHE_TTL_SECONDS', 'UNAUTHENTICATED_USAGE_KEY', 'ORIGIN_SECRET_ARN']);

export const handler = createAuthorizerHandler({
  keys: new DynamoApiKeyStore(documentClient(), env.TABLE_API_KEYS),
  clock: Date.now,
  keyCacheTtlMs: (env.KEY_CACHE_TTL_SECONDS ?? 60) * 1000,
  ...(env.ORIGIN_SECRET_ARN ? { originSecret: cachedSecretReader(env.ORIGIN_SECRET_ARN, 'The origin secret') } : {}),
  ...(env.UNAUTHENTICATED_USAGE_KEY ? { unauthenticatedUsageKey: env.UNAUTHENTICATED_USAGE_KEY } : {}),
});
