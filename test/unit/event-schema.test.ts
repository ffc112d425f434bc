/**
 * parseBatch validates with hand-written checks (no zod in the ingestion bundle); the zod schema of
 * domain/event-schema.ts documents the same rules in the OpenAPI document. Both must agree, messages
 * included: this runs each case through both, the schema after the aliasing and context merge that
 * parseBatch did with zod before.
 */
import { describe, expect, it } from 'vitest';
import { EVENT_STRING_FIELDS, FIELD_ALIASES, parseBatch } from '../../lambdas/domain/event';
import { SentEventSchema } from '../../lambdas/domain/event-schema';

/** The merge parseBatch did before the schema: aliases resolved (snake_case wins), context under the event. */
function unalias(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  for (const [alias, canonical] of Object.entries(FIELD_ALIASES)) {
    if (alias in raw) {
      if (!(canonical in raw)) out[canonical] = raw[alias];
      delete out[alias];
    }
  }
  return out;
}

function viaSchema(raw: Record<string, unknown>, context: Record<string, unknown>) {
  const ctx = unalias(context);
  for (const k of ['name', 'properties', 'timestamp']) delete ctx[k];
  const parsed = SentEventSchema.safeParse({ ...ctx, ...unalias(raw) });
  if (!parsed.success) return parsed.error.issues.map((i) => i.message).join('; ');
  const out: Record<string, unknown> = { name: parsed.data.name, properties: parsed.data.properties ?? {} };
  for (const f of EVENT_STRING_FIELDS) if (parsed.data[f] !== undefined) out[f] = parsed.data[f];
  return out;
}

function viaParseBatch(raw: Record<string, unknown>, context: Record<string, unknown>) {
  const r = parseBatch({ events: [raw], context });
  if (!r.ok) return r.kind === 'validation' ? r.details[0]!.error : r.error;
  const { timestampMs: _ts, ...event } = r.events[0]!;
  return event;
}

const long = 'x'.repeat(1025);
const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
  [{ name: 'a' }, {}],
  [{}, {}],
  [{ name: null }, {}],
  [{ name: 5, properties: [], user_id: '' }, {}],
  [{ name: '', properties: null, session_id: long, platform: 7 }, {}],
  [{ name: 'x'.repeat(256), properties: 'p', locale: null }, {}],
  [
    { name: 'a', properties: { a: 1, b: { c: [1] } } },
    { platform: 'web', locale: 'en' },
  ],
  [
    { name: 'a', platform: 'ios' },
    { platform: 'web', name: 'ctx', properties: 5, timestamp: 'bad' },
  ],
  [{ name: 'a' }, { platform: 5, userId: '' }],
  [{ name: 'a', userId: 'camel', user_id: 'snake' }, {}],
  [{ name: 'a', eventId: '1', client_event_id: '2', clientEventId: '3' }, {}],
  [{ name: 'a', eventId: '1', client_event_id: '2' }, { event_id: 'c' }],
  [{ name: 'a' }, { eventId: '1', clientEventId: '3', event_id: '0' }],
  [{ name: 'a' }, { clientEventId: '3', eventId: '1' }],
  [{ name: 'a', userId: 5 }, { user_id: 'ctx' }],
  [{ name: 'a', appVersion: '', osVersion: long, deviceManufacturer: 'x', appBuildNumber: '7', sessionId: 's' }, {}],
  [
    { name: 'a', environment: 'prod', timezone: 'UTC', unknown: 1 },
    { unknown: 2, sdk: 'x' },
  ],
  // The text rule (domain/client-text.ts), on every string field, from the event or the context.
  [{ name: 'cut\ud83d', user_id: 'nul\u0000', session_id: '\udc00' }, {}],
  [
    { name: 'a\u0000', userId: 'x\ud800' },
    { locale: 'en\u0000', platform: 'ok\ud83d\ude00' },
  ],
  [{ name: 'tab\tok\u0001', user_id: 'z1\ud83d\ude00' }, { timezone: 'UTC\udbff' }],
  // Properties: keys at any depth, string values, finite numbers; NUL is kept in values.
  [{ name: 'a', properties: { 'k\ud800': 1 } }, {}],
  [{ name: 'a', properties: { cart: { items: [{ 'sku\u0000': 'x' }] } } }, {}],
  [{ name: 'a', properties: { title: 'caf\ud83d', price: Infinity } }, {}],
  [{ name: 'a', properties: { n: [1, -Infinity] } }, {}],
  [{ name: 'a', properties: { note: 'a\u0000b', deep: ['\u0000'], ok: '\ud83d\ude00' } }, {}],
  [{ name: 'a\ud800', properties: { t: 'x\udc00' }, user_id: '' }, {}],
];

describe('parseBatch and the OpenAPI event schema', () => {
  it.each(cases.map((c, i) => [i, ...c] as const))('agree on case %i', (_i, raw, context) => {
    expect(viaParseBatch(raw, context)).toEqual(viaSchema(raw, context));
  });
});
