/**
 * What a project API key looks like: "tally_" and 43 base64url characters (256 random bits,
 * api-key.ts generateApiKey). Pure, so the dashboard can tell a mistyped or truncated key before
 * putting it in an install snippet.
 */
export const KEY_PREFIX = 'tally_';

export const API_KEY_PATTERN = /^tally_[A-Za-z0-9_-]{43}$/;

export function looksLikeApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}
