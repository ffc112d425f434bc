/**
 * The API key authorizer runs before every public request (its results are not cached by API
 * Gateway), so its cold start is on the request path: this entry wires only the key store, without
 * awsDeps() and zod, to keep the bundle small.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
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

/** The origin secret rarely changes: read it at most every five minutes per instance. */
function originSecret(secretId: string): () => Promise<string> {
  const client = new SecretsManagerClient({});
  let cached: { value: string; at: number } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < 5 * 60_000) return cached.value;
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!out.SecretString) throw new Error('The origin secret has no string value');
    cached = { value: out.SecretString, at: Date.now() };
    return cached.value;
  };
}

const env = readEnv(process.env);

export const handler = createAuthorizerHandler({
  keys: new DynamoApiKeyStore(documentClient(), env.table),
  clock: Date.now,
  keyCacheTtlMs: env.keyCacheTtlMs,
  ...(env.originSecretArn ? { originSecret: originSecret(env.originSecretArn) } : {}),
  ...(env.unauthenticatedUsageKey ? { unauthenticatedUsageKey: env.unauthenticatedUsageKey } : {}),
});
