import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { cachedSecretReader, SECRET_TTL_MS } from '../../lambdas/adapters/secret-reader';

describe('cachedSecretReader', () => {
  it('reads the secret once per SECRET_TTL_MS per instance', async () => {
    const sm = mockClient(SecretsManagerClient);
    sm.on(GetSecretValueCommand).resolvesOnce({ SecretString: 'one' }).resolves({ SecretString: 'two' });
    let now = 0;
    const read = cachedSecretReader('arn:secret', 'The test secret', new SecretsManagerClient({}), () => now);
    expect(await read()).toBe('one');
    now = SECRET_TTL_MS - 1;
    expect(await read()).toBe('one');
    now = SECRET_TTL_MS;
    expect(await read()).toBe('two');
    expect(sm.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    expect(sm.commandCalls(GetSecretValueCommand)[0]!.args[0].input).toEqual({ SecretId: 'arn:secret' });
    sm.restore();
  });

  it('fails, naming the secret, when it has no string value', async () => {
    const sm = mockClient(SecretsManagerClient);
    sm.on(GetSecretValueCommand).resolves({});
    await expect(cachedSecretReader('arn:secret', 'The origin secret', new SecretsManagerClient({}))()).rejects.toThrow(
      'The origin secret has no string value',
    );
    sm.restore();
  });
});
