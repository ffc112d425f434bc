/** The benchmark's request: 20 realistic events (about 4.5 KB as JSON, 425 B gzip), distinct per seed. */
export const BATCH = 20;

export function batch(seed: number): Buffer {
  const events = Array.from({ length: BATCH }, (_, i) => ({
    name: i % 4 === 0 ? 'page_view' : 'button_click',
    event_id: `${seed}-${i}`,
    user_id: `user-${seed % 997}`,
    session_id: `s-${seed % 101}`,
    timestamp: 1767225600000 + seed * BATCH + i,
    properties: { path: '/pricing', plan: 'pro', button: `cta-${i}`, experiment: { name: 'checkout-flow', variant: 'b' } },
  }));
  return Buffer.from(JSON.stringify({ context: { platform: 'web', app_version: '4.2.0', locale: 'en-GB' }, events }));
}
