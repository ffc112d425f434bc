import { hash } from 'node:crypto';

/**
 * The deduplication key of the spec: (name, user_id as sent, timestamp as an instant).
 * JSON encoding of the triple keeps "a|b" + "c" and "a" + "b|c" apart; an absent user_id is null,
 * a value like any other.
 */
export function dedupeKey(name: string, sentUserId: string | null, timestampMs: number): string {
  // crypto.hash (Node 20.12+) is the one-shot form of createHash(...).update(...).digest(...): same digest, no Hash object per event.
  return hash('sha256', JSON.stringify([name, sentUserId, timestampMs]), 'base64url');
}
