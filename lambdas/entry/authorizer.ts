/**
 * The API key authorizer runs before every public request (its results are not cached by API
 * Gateway), so its cold start is on the request path: this entry wires only the key store, without
 * awsDeps() and zod, to keep the bundle small.
 */
import { cachedSecretReader } from '../adapters/secret-reader';
import { createAuthorizerHandler } from '../handlers/authorizer';
import { DynamoApiKeyStore } from '../store/api-key-store';
import { documentClient } from '../store/dynamo-client';
import { tableEnvVar } from '../store/schema';

/**
 * Set by the stack (lib/grants.ts, lib/tally-stack.ts, lib/api/api.ts); ORIGIN_SECRET_ARN only with
 * CloudFront in front. UNAUTHENTICATED_USAGE_KEY: the API key value that lets a request without a
 * valid key reach its handler's 401.
 */
function readEnv(source: NodeJS.ProcessEnv) {
  const table = source[tableEnvVar('api_keys')];
  const ttl = Number(source.KEY_CACHE_TTL_SECONDS ?? '60');
  const invalid = [
    ...(table ? [] : [tableEnvVar('api_keys')]),
    ...(Number.isInteger(ttl) && ttl >= 0 ? [] : ['KEY_CACHE_TTL_SECONDS']),
  ];
  if (invalid.length) throw new Error(`Invalid or missing environment variables: ${invalid.join(', ')}`);
  return {
    table: table!,
    keyCacheTtlMs: ttl * 1000,
    originSecretArn: source.ORIGIN_SECRET_ARN || undefined,
    unauthenticatedUsageKey: source.UNAUTHENTICATED_USAGE_KEY || undefined,
  };
}

const env = readEnv(process.env);

export const handler = createAuthorizerHandler({
  keys: new DynamoApiKeyStore(documentClient(), env.table),
  clock: Date.now,
  keyCacheTtlMs: env.keyCacheTtlMs,
  ...(env.originSecretArn ? { originSecret: cachedSecretReader(env.originSecretArn, 'The origin secret') } : {}),
  ...(env.unauthenticatedUsageKey ? { unauthenticatedUsageKey: env.unauthenticatedUsageKey } : {}),
});
