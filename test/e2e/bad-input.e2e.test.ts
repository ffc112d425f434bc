/** Bad input of every kind gets a clear 4xx, is never stored, and never crashes the server. */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../lambdas/domain/limits';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('bad input'));
});
afterAll(() => stack.stop());

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe.each(['/v1/events', '/api/events'])('%s', (path) => {
  const api = path === '/api/events';
  const expectError = (res: { status: number; json: any }, status: number, pattern: RegExp) => {
    expect(res.status).toBe(status);
    if (api) {
      expect(res.json).toEqual({ success: false, error: expect.stringMatching(pattern) });
    } else {
      expect(JSON.stringify(res.json)).toMatch(pattern);
      expect(res.json.error).toEqual(expect.any(String));
    }
  };

  it('malformed JSON is an invalid payload', async () => {
    const res = await stack.post(path, key, undefined, { raw: '{"events": [' });
    expectError(res, 400, /Invalid payload format.*not valid JSON/);
    if (!api) expect(res.json.error).toBe('Invalid payload format');
  });

  it('a body of the wrong shape is an invalid payload', async () => {
    for (const body of [[], { events: 'x' }, 'events', null]) {
      expectError(await stack.post(path, key, body), 400, /Invalid payload format/);
    }
  });

  it('an unsupported Content-Type or Content-Encoding gets 415', async () => {
    expectError(await stack.post(path, key, { events: [] }, { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }), 415, /Content-Type/);
    expectError(await stack.post(path, key, { events: [] }, { headers: { 'Content-Encoding': 'br' } }), 415, /Content-Encoding/);
  });

  it('invalid UTF-8 and broken gzip are rejected', async () => {
    expectError(await stack.post(path, key, undefined, { raw: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }), 400, /UTF-8/);
    expectError(await stack.post(path, key, undefined, { raw: Buffer.from('not gzip'), headers: { 'Content-Encoding': 'gzip' } }), 400, /gzip/);
  });

  it('deep nesting and __proto__ keys are rejected', async () => {
    expectError(await stack.post(path, key, undefined, { raw: `{"events":[{"name":"a","properties":{"x":${nested(100)}}}]}` }), 400, /nested deeper than 32/);
    expectError(
      await stack.post(path, key, undefined, {
        raw: `{"events":[{"name":"a","properties":${nested(100_000).replace(/\[/g, '{"a":').replace(/]/g, '}').replace('{"a":}', '{}')}}]}`,
      }),
      400,
      /nested deeper|not valid JSON/,
    );
    expectError(await stack.post(path, key, undefined, { raw: '{"events":[{"name":"a","properties":{"__proto__":{"admin":true}}}]}' }), 400, /__proto__/);
  });

  it('bodies over the size limit get 413 naming the limit', async () => {
    const huge = JSON.stringify({ events: [{ name: 'a', properties: { s: 'x'.repeat(LIMITS.maxBodyBytes) } }] });
    expectError(await stack.post(path, key, undefined, { raw: huge }), 413, /1048576 bytes/);
  });

  it('a gzip bomb is refused with 413 without inflating it', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
    expect(bomb.length).toBeLessThan(LIMITS.maxBodyBytes);
    const res = await stack.post(path, key, undefined, { raw: bomb, headers: { 'Content-Encoding': 'gzip' } });
    expectError(res, 413, /Decompressed body exceeds 5242880 bytes/);
  });

  it('too many events and oversized properties are refused', async () => {
    const many = { events: Array.from({ length: LIMITS.maxEventsPerBatch + 1 }, () => ({ name: 'm' })) };
    expectError(await stack.post(path, key, many, { gzip: true }), 413, /at most 1000 events/);
    const props = { events: [{ name: 'p', properties: { s: 'x'.repeat(LIMITS.maxPropertiesBytes + 1) } }] };
    expectError(await stack.post(path, key, props), 400, /properties are \d+ bytes as JSON; the limit is 32768/);
  });

  it('wrong field types name the field', async () => {
    const res = await stack.post(path, key, { events: [{ name: 'a', properties: 'x', session_id: 3, platform: {} }] });
    for (const field of [/session_id must be a string/, /platform must be a string/, /properties must be a JSON object/]) {
      expectError(res, 400, field);
    }
  });

  it('a time-zone offset past ±23:59 is refused, not shifted by days (issue 19, 5)', async () => {
    const res = await stack.post(path, key, { events: [{ name: 'tz', timestamp: '2026-01-01T00:00:00+99:99' }] });
    expectError(res, 400, /timestamp \\?"2026-01-01T00:00:00\+99:99\\?" has a time-zone offset out of range \(from -23:59 to \+23:59\)/);
  });

  it('a number beyond a double is refused naming the property, not stored as null (issue 19, 5)', async () => {
    const res = await stack.post(path, key, undefined, { raw: '{"events":[{"name":"inf","properties":{"cart":{"total":1e309}}}]}' });
    expectError(res, 400, /properties\.cart\.total is a number too large to store/);
  });

  it("an $identify's $anonymous_id must be a string (issue 19, 5)", async () => {
    const res = await stack.post(path, key, { events: [{ name: '$identify', user_id: 'n1', properties: { $anonymous_id: 123 } }] });
    expectError(res, 400, /properties\.\$anonymous_id must be a string/);
  });

  it('stored nothing from any of the bad requests, and still serves', async () => {
    expect(stack.rawEvents(project).filter((e) => e.name !== 'after')).toHaveLength(0);
    expect((await stack.post(path, key, { events: [{ name: 'after' }] })).status).toBe(api ? 200 : 204);
  });
});
