import { describe, expect, it } from 'vitest';
import { parseBatch, toStoredEvent, uniqueByDedupeKey, type SentEvent } from '../../lambdas/domain/event';
import { dedupeKey } from '../../lambdas/domain/dedupe';
import { LIMITS } from '../../lambdas/domain/limits';

const facts = {
  projectId: 'p1',
  receivedMs: Date.UTC(2026, 0, 10),
  source: 'v1' as const,
  sdk: null,
  sdkVersion: null,
  geo: { country: 'GB', region: 'England', city: 'London' },
};

function ok(body: unknown): SentEvent[] {
  const r = parseBatch(body);
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.events;
}

describe('parseBatch', () => {
  it('rejects bodies that are not { events: [...] } as a payload error', () => {
    for (const body of [null, [], 'x', {}, { events: {} }, { events: [], context: [] }]) {
      expect(parseBatch(body)).toMatchObject({ ok: false, kind: 'payload' });
    }
  });

  it('reports every failing event with its index and a readable error', () => {
    const r = parseBatch({
      events: [{ name: 'ok' }, {}, { name: '' }, { name: 'x'.repeat(256) }, 'str', { name: 'a', properties: [] }, { name: 'a', user_id: 5 }],
    });
    expect(r).toEqual({
      ok: false,
      kind: 'validation',
      details: [
        { index: 1, error: 'name is required' },
        { index: 2, error: 'name must not be empty' },
        { index: 3, error: 'name is longer than 255 characters' },
        { index: 4, error: 'event must be a JSON object' },
        { index: 5, error: 'properties must be a JSON object' },
        { index: 6, error: 'user_id must be a string' },
      ],
    });
  });

  it('accepts a 255-character name and rejects a bad timestamp by index', () => {
    expect(ok({ events: [{ name: 'n'.repeat(255) }] })).toHaveLength(1);
    const r = parseBatch({ events: [{ name: 'a' }, { name: 'b', timestamp: 'soon' }] });
    expect(r.ok === false && r.kind === 'validation' && r.details[0]!.index).toBe(1);
  });

  it('accepts camelCase names and the client_event_id alias; snake_case wins when both are sent', () => {
    const [e] = ok({
      events: [
        { name: 'a', userId: 'u', sessionId: 's', clientEventId: 'e1', appVersion: '1.2', appBuildNumber: '7', osVersion: '17', deviceManufacturer: 'Apple' },
      ],
    });
    expect(e).toMatchObject({
      user_id: 'u',
      session_id: 's',
      event_id: 'e1',
      app_version: '1.2',
      app_build_number: '7',
      os_version: '17',
      device_manufacturer: 'Apple',
    });
    expect(ok({ events: [{ name: 'a', client_event_id: 'x' }] })[0]!.event_id).toBe('x');
    expect(ok({ events: [{ name: 'a', user_id: 'snake', userId: 'camel' }] })[0]!.user_id).toBe('snake');
  });

  it('applies context defaults, lets the event win, and never takes name, properties or timestamp from context', () => {
    const events = ok({
      context: { platform: 'ios', appVersion: '2.0', environment: 'production', name: 'ctx', properties: { a: 1 }, timestamp: 0 },
      events: [{ name: 'first' }, { name: 'second', platform: 'android' }],
    });
    expect(events[0]).toMatchObject({ name: 'first', platform: 'ios', app_version: '2.0', environment: 'production', properties: {}, timestampMs: undefined });
    expect(events[1]!.platform).toBe('android');
  });

  it('refuses more events than the batch limit and oversized properties', () => {
    const many = { events: Array.from({ length: LIMITS.maxEventsPerBatch + 1 }, () => ({ name: 'a' })) };
    expect(parseBatch(many)).toMatchObject({ ok: false, kind: 'too_many' });
    const big = parseBatch({ events: [{ name: 'a', properties: { s: 'x'.repeat(LIMITS.maxPropertiesBytes) } }] });
    expect(big.ok === false && big.kind === 'validation' && big.details[0]!.error).toMatch(/properties are \d+ bytes/);
  });

  const errorOf = (body: unknown) => {
    const r = parseBatch(body);
    return r.ok === false && r.kind === 'validation' ? r.details.map((d) => d.error) : r;
  };

  it("refuses an $identify's $anonymous_id that breaks the rule of ID fields", () => {
    const identify = (anonymousId: unknown) => errorOf({ events: [{ name: '$identify', user_id: 'u', properties: { $anonymous_id: anonymousId } }] });
    expect(identify(123)).toEqual(['properties.$anonymous_id must be a string']);
    expect(identify(null)).toEqual(['properties.$anonymous_id must be a string']);
    expect(identify('')).toEqual(['properties.$anonymous_id must not be empty (leave it out instead)']);
    expect(identify('a'.repeat(1025))).toEqual(['properties.$anonymous_id is longer than 1024 characters']);
    expect(identify('a\u0000')).toEqual([expect.stringMatching(/^properties\.\$anonymous_id contains U\+0000/)]);
    expect(identify('\u00e9'.repeat(600))).toEqual([expect.stringMatching(/^properties\.\$anonymous_id is 1200 bytes as UTF-8/)]);
    // Only an $identify's: on other events it is a property like any other, and leaving it out is fine.
    expect(ok({ events: [{ name: 'e', properties: { $anonymous_id: 123 } }] })).toHaveLength(1);
    expect(ok({ events: [{ name: '$identify', user_id: 'u', properties: { email: 'a@b.c' } }] })).toHaveLength(1);
  });

  it('refuses a number JSON.parse read as Infinity, naming the property, instead of storing null', () => {
    const body = JSON.parse('{"events":[{"name":"a","properties":{"price":1e309}},{"name":"b","properties":{"n":[1,-1e400]}}]}');
    expect(errorOf(body)).toEqual([
      'properties.price is a number too large to store: JSON numbers must be within ±1.7976931348623157e308',
      'properties.n[1] is a number too large to store: JSON numbers must be within ±1.7976931348623157e308',
    ]);
    expect(ok(JSON.parse('{"events":[{"name":"a","properties":{"max":1.7976931348623157e308,"tiny":1e-400}}]}'))[0]!.properties).toEqual({
      max: Number.MAX_VALUE,
      tiny: 0,
    });
  });
});

describe('toStoredEvent', () => {
  it('ignores country, region and city sent by the client and stores the server-derived ones', () => {
    const [sent] = ok({ context: { country: 'FR' }, events: [{ name: 'a', country: 'US', region: 'X', city: 'Y', properties: { country: 'DE' } }] });
    const stored = toStoredEvent(sent!, facts);
    expect(stored).toMatchObject({ country: 'GB', region: 'England', city: 'London' });
    expect(stored.properties).toEqual({ country: 'DE' });
  });

  it('stores timestamps as ISO 8601 UTC with milliseconds, arrival time by default, clamps the far future', () => {
    const [a, b, c] = ok({ events: [{ name: 'a' }, { name: 'b', timestamp: 1767225600 }, { name: 'c', timestamp: facts.receivedMs + 49 * 3_600_000 }] });
    expect(toStoredEvent(a!, facts).timestamp).toBe('2026-01-10T00:00:00.000Z');
    expect(toStoredEvent(b!, facts).timestamp).toBe('2026-01-01T00:00:00.000Z');
    expect(toStoredEvent(c!, facts).timestamp).toBe('2026-01-10T00:00:00.000Z');
  });

  it('keys deduplication on (name, user_id as sent, instant) only', () => {
    const events = ok({
      events: [
        { name: 'a', user_id: 'u', timestamp: '2026-01-01T00:00:00Z', event_id: '1', properties: { x: 1 } },
        { name: 'a', user_id: 'u', timestamp: 1767225600000, event_id: '2', properties: { x: 2 } },
        { name: 'a', timestamp: 1767225600 },
        { name: 'a', timestamp: 1767225600 },
        { name: 'b', user_id: 'u', timestamp: 1767225600 },
      ],
    }).map((e) => toStoredEvent(e, facts));
    expect(events[0]!.dedupe_key).toBe(events[1]!.dedupe_key);
    expect(events[2]!.dedupe_key).toBe(events[3]!.dedupe_key);
    expect(events[0]!.dedupe_key).not.toBe(events[2]!.dedupe_key);
    expect(events[0]!.dedupe_key).not.toBe(events[4]!.dedupe_key);
    const unique = uniqueByDedupeKey(events);
    expect(unique.map((e) => e.event_id)).toEqual(['1', null, null]);
  });

  it('does not confuse delimiters inside the triple', () => {
    expect(dedupeKey('a|b', 'c', 1)).not.toBe(dedupeKey('a', 'b|c', 1));
    expect(dedupeKey('a', null, 1)).not.toBe(dedupeKey('a', 'null', 1));
  });
});
