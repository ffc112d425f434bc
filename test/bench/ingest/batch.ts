/** The benchmark's request: 20 realistic events (about 4.5 KB as JSON, 425 B gzip), distinct per seed. */
export const BATCH = 20;
/** The backfill mode's request: the documented maximum batch (docs/api.md, "Limits"), about 230 KB as JSON. */
export const MAX_BATCH = 1000;

/**
 * The user of event `i` of batch `seed`: one user per 20-event batch, as an app's batch is; a backfill's
 * batch carries the history of many users (each event's of 4,999, so a 1,000-event batch names 1,000).
 */
export function userOf(seed: number, i: number, size = BATCH): string {
  return size === BATCH ? `user-${seed % 997}` : `user-${(seed * 31 + i) % 4999}`;
}

/** `size` events (BATCH unless set), distinct per seed. */
export function batch(seed: number, size = BATCH): Buffer {
  const events = Array.from({ length: size }, (_, i) => ({
    name: i % 4 === 0 ? 'page_view' : 'button_click',
    event_id: `${seed}-${i}`,
    user_id: userOf(seed, i, size),
    session_id: `s-${seed % 101}`,
    timestamp: 1767225600000 + seed * size + i,
    properties: { path: '/pricing', plan: 'pro', button: `cta-${i}`, experiment: { name: 'checkout-flow', variant: 'b' } },
  }));
  return Buffer.from(JSON.stringify({ context: { platform: 'web', app_version: '4.2.0', locale: 'en-GB' }, events }));
}
