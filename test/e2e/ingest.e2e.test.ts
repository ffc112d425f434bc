/** POST /v1/events and POST /api/events through the local server: storage, dedupe, raw stream layout. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('ingest'));
});
afterAll(() => stack.stop());

describe('POST /v1/events', () => {
  it('answers 204 with an empty body and writes the raw stream in the S3 key layout', async () => {
    const res = await stack.post(
      '/v1/events',
      key,
      {
        context: { platform: 'web', app_version: '3.1' },
        events: [
          {
            name: 'page_view',
            user_id: 'layout-user',
            session_id: 's1',
            event_id: 'e-1',
            timestamp: '2026-03-04T05:06:07.089Z',
            properties: { path: '/pricing' },
            locale: 'en-GB',
            timezone: 'Europe/London',
          },
        ],
      },
      { headers: { 'X-Tally-SDK': 'tally-js', 'X-Tally-SDK-Version': '1.4.0' } },
    );
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // landing/events/arrival_hour=<arrival hour, UTC>/<file>.ndjson (docs/data-model.md): keyed by
    // arrival only, whatever the event's day (2026-03-04 here) or project.
    const hours = readdirSync(stack.eventsDir);
    expect(hours).toHaveLength(1);
    expect(hours[0]).toMatch(/^arrival_hour=\d{4}-\d{2}-\d{2}-\d{2}$/);
    const files = readdirSync(join(stack.eventsDir, hours[0]!));
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((f) => f.endsWith('.ndjson'))).toBe(true);
    expect(stack.eventsDir).toBe(join(stack.dataDir, 'landing', 'events'));
    const stored = stack.rawEvents(project).find((e) => e.user_id === 'layout-user');
    expect(stored).toMatchObject({
      project_id: project,
      name: 'page_view',
      event_id: 'e-1',
      user_id: 'layout-user',
      sent_user_id: 'layout-user',
      session_id: 's1',
      timestamp: '2026-03-04T05:06:07.089Z',
      properties: { path: '/pricing' },
      platform: 'web',
      app_version: '3.1',
      locale: 'en-GB',
      timezone: 'Europe/London',
      country: null,
      region: null,
      city: null,
      sdk: 'tally-js',
      sdk_version: '1.4.0',
      source: 'v1',
    });
    expect(stored!.received_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('stores sdk and sdk_version from the metadata headers under either prefix, X-Tally- first', async () => {
    const send = (user: string, headers: Record<string, string>) =>
      stack.post('/v1/events', key, { events: [{ name: 'sdk_headers', user_id: user, timestamp: 1767225700 }] }, { headers });
    expect((await send('mgm', { 'X-MGM-SDK': 'javascript', 'x-mgm-sdk-version': '0.10.0' })).status).toBe(204);
    expect(
      (await send('both', { 'X-MGM-SDK': 'javascript', 'X-MGM-SDK-Version': '0.10.0', 'X-Tally-SDK': 'tally-js', 'X-Tally-SDK-Version': '2.0.0' })).status,
    ).toBe(204);
    expect((await send('none', {})).status).toBe(204);
    const stored = (user: string) => stack.rawEvents(project).find((e) => e.name === 'sdk_headers' && e.sent_user_id === user);
    expect(stored('mgm')).toMatchObject({ sdk: 'javascript', sdk_version: '0.10.0' });
    expect(stored('both')).toMatchObject({ sdk: 'tally-js', sdk_version: '2.0.0' });
    expect(stored('none')).toMatchObject({ sdk: null, sdk_version: null });
  });

  it('deduplicates one instant written four ways, across requests and inside one batch', async () => {
    const spellings = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000+00:00', 1767225600, 1767225600000];
    expect(
      (await stack.post('/v1/events', key, { events: spellings.map((timestamp, i) => ({ name: 'dup', user_id: 'd1', timestamp, event_id: `try-${i}` })) }))
        .status,
    ).toBe(204);
    for (const timestamp of spellings) {
      expect((await stack.post('/v1/events', key, { events: [{ name: 'dup', user_id: 'd1', timestamp }] })).status).toBe(204);
    }
    const stored = stack.rawEvents(project).filter((e) => e.name === 'dup');
    expect(stored).toHaveLength(1);
    expect(stored[0]!.event_id).toBe('try-0');
  });

  it('treats an absent user_id as a value: same name and instant without user_id dedupe', async () => {
    await stack.post('/v1/events', key, {
      events: [
        { name: 'anon', timestamp: 1767225601 },
        { name: 'anon', timestamp: 1767225601 },
        { name: 'anon', user_id: 'x', timestamp: 1767225601 },
      ],
    });
    await stack.post('/v1/events', key, { events: [{ name: 'anon', timestamp: 1767225601000 }] });
    const stored = stack.rawEvents(project).filter((e) => e.name === 'anon');
    expect(stored.map((e) => e.sent_user_id).sort()).toEqual([null, 'x'].sort());
  });

  it('never lets one project dedupe against another', async () => {
    const other = await stack.createProject('other');
    const otherKey = await stack.createKey(other);
    const body = { events: [{ name: 'shared', user_id: 'u', timestamp: 1767225602 }] };
    await stack.post('/v1/events', key, body);
    await stack.post('/v1/events', otherKey, body);
    expect(stack.rawEvents(project).filter((e) => e.name === 'shared')).toHaveLength(1);
    expect(stack.rawEvents(other).filter((e) => e.name === 'shared')).toHaveLength(1);
  });

  it('stores every event of a batch over 500 events (Firehose de-aggregates at most 500 lines per record)', async () => {
    // 501 is the smallest batch that needs a second record; a larger one only adds dynalite time.
    const events = Array.from({ length: 501 }, (_, i) => ({ name: 'bulk_501', user_id: `b${i}`, timestamp: 1767225700 }));
    expect((await stack.post('/v1/events', key, { events }, { gzip: true })).status).toBe(204);
    const stored = stack.rawEvents(project).filter((e) => e.name === 'bulk_501');
    expect(new Set(stored.map((e) => e.sent_user_id)).size).toBe(501);
  });

  it('accepts gzip bodies', async () => {
    const events = Array.from({ length: 20 }, (_, i) => ({ name: 'gz', user_id: `g${i}`, timestamp: 1767225603, properties: { i } }));
    const res = await stack.post('/v1/events', key, { events }, { gzip: true });
    expect(res.status).toBe(204);
    expect(stack.rawEvents(project).filter((e) => e.name === 'gz')).toHaveLength(20);
  });

  it('rejects the whole batch when one event is invalid, storing none of it', async () => {
    const res = await stack.post('/v1/events', key, {
      events: [{ name: 'kept-out', user_id: 'v' }, { user_id: 'no-name' }, { name: 'x', timestamp: 'never' }],
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: 'Validation failed',
      details: [
        { index: 1, error: 'name is required' },
        { index: 2, error: expect.stringContaining('timestamp "never" is not ISO 8601') },
      ],
    });
    expect(stack.rawEvents(project).filter((e) => e.name === 'kept-out')).toHaveLength(0);
  });

  it('clamps timestamps more than 48 hours ahead to arrival time', async () => {
    const before = Date.now();
    await stack.post('/v1/events', key, { events: [{ name: 'future', timestamp: before + 72 * 3_600_000 }] });
    const stored = stack.rawEvents(project).find((e) => e.name === 'future')!;
    expect(Date.parse(stored.timestamp)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(stored.timestamp)).toBeLessThan(before + 60_000);
  });
});

describe('POST /api/events', () => {
  it('answers 200 with events_received counting every event sent, duplicates included', async () => {
    const body = {
      events: [
        { name: 'api', user_id: 'a', timestamp: '2026-02-01T00:00:00Z' },
        { name: 'api', user_id: 'a', timestamp: '2026-02-01T00:00:00Z' },
      ],
    };
    const res = await stack.post('/api/events', key, body);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ success: true, events_received: 2 });
    const again = await stack.post('/api/events', key, body);
    expect(again.json).toEqual({ success: true, events_received: 2 });
    const stored = stack.rawEvents(project).filter((e) => e.name === 'api');
    expect(stored).toHaveLength(1);
    expect(stored[0]!.source).toBe('api');
  });

  it('shares deduplication with /v1/events', async () => {
    await stack.post('/v1/events', key, { events: [{ name: 'both', user_id: 'b', timestamp: 1767225604 }] });
    await stack.post('/api/events', key, { events: [{ name: 'both', user_id: 'b', timestamp: '2026-01-01T00:00:04Z' }] });
    expect(stack.rawEvents(project).filter((e) => e.name === 'both')).toHaveLength(1);
  });

  it('gives validation and payload errors as { success: false, error }', async () => {
    const invalid = await stack.post('/api/events', key, { events: [{ name: 'ok' }, { name: 7 }] });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toEqual({ success: false, error: 'Validation failed: event 1: name must be a string' });
    const payload = await stack.post('/api/events', key, { event: [] });
    expect(payload.status).toBe(400);
    expect(payload.json).toEqual({
      success: false,
      error: expect.stringMatching(/^Invalid payload format: body must be a JSON object with an "events" array/),
    });
  });
});
