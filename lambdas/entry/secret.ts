/**
 * A Secrets Manager secret read through a per-instance cache: the admin token (admin routes) and the
 * CloudFront origin secret (authorizer) rarely change, so each instance reads them at most once per
 * `ttlMs`. `label` names the secret in the error when it has no string value.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export function cachedSecret(secretId: string, ttlMs: number, label: string): () => Promise<string> {
  const client = new SecretsManagerClient({});
  let cached: { value: string; at: number } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < ttlMs) return cached.value;
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!out.SecretString) throw new Error(`${label} has no string value`);
    cached = { value: out.SecretString, at: Date.now() };
    return cached.value;
  };
}
