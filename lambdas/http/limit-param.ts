/** A listing's `limit` query parameter: a whole number from 1 to `max`, `fallback` when absent; a 400 says which bound it broke. */
import * as z from 'zod';

export function limitParam(max: number, fallback: number) {
  return z.coerce
    .number({ error: 'limit must be an integer' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(max, `limit must be at most ${max}`)
    .default(fallback);
}
