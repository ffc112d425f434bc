/**
 * Secrets Manager secrets as the Lambdas read them: a function returning the secret's string, cached
 * per instance for a few minutes (a secret rarely changes, and a read per request would cost one
 * Secrets Manager call each). The admin token and the CloudFront origin secret both read this way.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** How long an instance reuses a secret it read. */
export const SECRET_TTL_MS = 5 * 60_000;

/** description names the secret in the error thrown when it has no string value ("The admin token secret"). */
export function cachedSecretReader(
  secretId: string,
  description: string,
  client: Pick<SecretsManagerClient, 'send'> = new SecretsManagerClient({}),
  clock: () => number = Date.now,
): () => Promise<string> {
  let cached: { value: string; at: number } | undefined;
  return async () => {
    if (cached && clock() - cached.at < SECRET_TTL_MS) return cached.value;
    const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!out.SecretString) throw new Error(`${description} has no string value`);
    cached = { value: out.SecretString, at: clock() };
    return cached.value;
  };
}
