/**
 * Identity IDs (user_id, an `$identify`'s properties.$anonymous_id, the IDs of GET /v1/experiments)
 * become parts of DynamoDB keys, and DynamoDB limits keys in UTF-8 bytes (partition key 2,048, sort
 * key 1,024, index keys included) and rejects an over-long key with a ValidationException on every
 * retry. dynalite counts UTF-16 units instead, so only this check keeps local and AWS alike.
 *
 * The budget, from the layouts in store/schema.ts (project and experiment IDs are 36-byte UUIDs):
 *  - identities.pk            `<project>#<id>`               partition key  2,048 - 37 = 2,011
 *  - by_canonical.canonical_pk `<project>#<canonical id>`    partition key  2,011
 *  - by_canonical.id           `<id>`                        sort key       1,024  <- the tightest
 *  - assignments.pk           `<project>#<experiment>#<id>`  partition key  2,048 - 74 = 1,974
 * The events ledger keys hold only a hash of the ID (dedupe key), so they never grow with it.
 */
import { LIMITS } from './limits';

export const utf8Bytes = (value: string): number => Buffer.byteLength(value, 'utf8');

/** Why an ID cannot be stored as a key, or undefined when it can. */
export function idKeyProblem(label: string, id: string): string | undefined {
  const bytes = utf8Bytes(id);
  if (bytes <= LIMITS.maxIdBytes) return undefined;
  return `${label} is ${bytes} bytes as UTF-8; IDs may be at most ${LIMITS.maxIdBytes} bytes (non-ASCII characters take 2-4 bytes each). Send a shorter ID, for example a hash of it`;
}
