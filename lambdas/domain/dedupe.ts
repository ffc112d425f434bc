import { createHash } from 'node:crypto';

/**
 * The deduplication key of the spec: (name, user_id as sent, timestamp as an instant).
 * JSON encoding of the triple keeps "a|b" + "c" and "a" + "b|c" apart; an absent user_id is null,
 * a value like any other.
 */
export function dedupeKey(name: string, sentUserId: string | null, timestampMs: number): string {
  return createHash('sha256')
    .update(JSON.stringify([name, sentUserId, timestampMs]))
    .digest('base64url');
}
