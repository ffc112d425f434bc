/** The key shape the dashboard checks a pasted key against is the shape keys are generated with. */
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../lambdas/domain/api-key';
import { looksLikeApiKey } from '../../lambdas/domain/api-key-shape';

describe('looksLikeApiKey', () => {
  it('accepts every generated key', () => {
    for (let i = 0; i < 200; i++) expect(looksLikeApiKey(generateApiKey())).toBe(true);
  });

  it('refuses a truncated, padded or foreign value', () => {
    const key = generateApiKey();
    for (const value of [key.slice(0, -1), `${key}x`, ` ${key}`, key.replace('tally_', 'tadm_'), 'tally_example', ''])
      expect(looksLikeApiKey(value), value).toBe(false);
  });
});
