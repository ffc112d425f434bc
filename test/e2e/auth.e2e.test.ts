/** Authentication, key restrictions, rate limits and CORS on every public route. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestProject, startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;
const body = { events: [{ name: 'auth' }] };

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('auth'));
});
afterAll(() => stack.stop());

describe('project keys', () => {
  it('a missing, malformed or unknown key gets 401 with each path’s body', async () => {
    for (const auth of [undefined, 'Bearer', 'Basic abc', 'Bearer tally_unknown']) {
      const headers = auth ? { Authorization: auth } : undefined;
      const v1 = await fetch(`${stack.url}/v1/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      expect(v1.status).toBe(401);
      expect(await v1.json()).toEqual({ error: 'Invalid or missing API key' });
      const api = await fetch(`${stack.url}/api/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      expect(api.status).toBe(401);
      expect(await api.json()).toEqual({ success: false, error: 'Invalid or missing API key' });
    }
  });

  it('the admin token never opens an ingestion route, and a key never opens an admin route', async () => {
    expect((await stack.post('/v1/events', ADMIN_TOKEN, body)).status).toBe(401);
    const res = await fetch(`${stack.url}/admin/v1/projects`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'Invalid or missing admin token' });
  });

  it('a revoked key gets 401 from then on', async () => {
    const created = await stack.admin('POST', `/admin/v1/projects/${project}/keys`, {});
    expect((await stack.post('/v1/events', created.body.key, body)).status).toBe(204);
    expect((await stack.admin('DELETE', `/admin/v1/projects/${project}/keys/${created.body.id}`)).status).toBe(204);
    const after = await stack.post('/v1/events', created.body.key, body);
    expect(after.status).toBe(401);
    expect(after.json).toEqual({ error: 'Invalid or missing API key' });
  });

  it('an origin-restricted key refuses other origins with 403 and allows server-side requests', async () => {
    const web = await stack.createKey(project, { allowed_origins: ['https://app.example.com'] });
    const allowed = await stack.post('/v1/events', web, body, { headers: { Origin: 'https://app.example.com' } });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const refused = await stack.post('/v1/events', web, body, { headers: { Origin: 'https://evil.example' } });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ error: 'Request origin not allowed for this API key' });
    const apiRefused = await stack.post('/api/events', web, body, { headers: { Origin: 'https://evil.example' } });
    expect(apiRefused.json).toEqual({ success: false, error: 'Request origin not allowed for this API key' });
    expect((await stack.post('/v1/events', web, body)).status).toBe(204);
  });

  it('a bundle-restricted key requires a listed X-Tally-Bundle-ID', async () => {
    const mobile = await stack.createKey(project, { allowed_bundle_ids: ['com.acme.app'] });
    expect((await stack.post('/v1/events', mobile, body, { headers: { 'X-Tally-Bundle-ID': 'com.acme.app' } })).status).toBe(204);
    const missing = await stack.post('/v1/events', mobile, body);
    expect(missing.status).toBe(403);
    expect(missing.json.error).toMatch(/X-Tally-Bundle-ID/);
    expect((await stack.post('/v1/events', mobile, body, { headers: { 'X-Tally-Bundle-ID': 'com.other' } })).status).toBe(403);
    // The MGM SDKs' spelling, in any case; X-Tally- wins when both are sent.
    expect((await stack.post('/v1/events', mobile, body, { headers: { 'X-MGM-Bundle-Id': 'com.acme.app' } })).status).toBe(204);
    expect((await stack.post('/v1/events', mobile, body, { headers: { 'x-mgm-bundle-id': 'com.acme.app' } })).status).toBe(204);
    expect((await stack.post('/v1/events', mobile, body, { headers: { 'X-MGM-Bundle-Id': 'com.other' } })).status).toBe(403);
    const both = { 'X-Tally-Bundle-ID': 'com.other', 'X-MGM-Bundle-Id': 'com.acme.app' };
    expect((await stack.post('/v1/events', mobile, body, { headers: both })).status).toBe(403);
    expect(missing.json.error).toMatch(/X-MGM-Bundle-Id is accepted too/);
  });
});

describe('rate limits', () => {
  it('the request over a key’s limit gets 429 with Retry-After in seconds and both paths’ members', async () => {
    const slow = await stack.createKey(project, { plan: 'enterprise', rate_limit_per_minute: 3 });
    for (let i = 0; i < 3; i++) expect((await stack.post('/v1/events', slow, body)).status).toBe(204);
    const limited = await stack.post('/v1/events', slow, body);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('20');
    // One body on every path, as API Gateway's static 429 (lib/api/gateway-responses.ts).
    expect(limited.json).toEqual({ error: 'Rate limit exceeded', retry_after: 20, success: false });
    const api = await stack.post('/api/events', slow, body);
    expect(api.status).toBe(429);
    expect(api.headers.get('retry-after')).toBe('20');
    expect(api.json).toEqual({ success: false, error: 'Rate limit exceeded', retry_after: 20 });
  });

  it('counts per key: another key of the same project is not limited', async () => {
    const a = await stack.createKey(project, { plan: 'enterprise', rate_limit_per_minute: 1 });
    const b = await stack.createKey(project, { plan: 'enterprise', rate_limit_per_minute: 1 });
    expect((await stack.post('/v1/events', a, body)).status).toBe(204);
    expect((await stack.post('/v1/events', a, body)).status).toBe(429);
    expect((await stack.post('/v1/events', b, body)).status).toBe(204);
  });

  it('a free key gets the spec’s 100 requests per minute', async () => {
    // A stopped clock: on a loaded machine 101 requests can take longer than the 0.6 s in which the
    // bucket refills one request, which would let the 101st through.
    const frozen = await startTestStack({ clock: () => Date.parse('2026-01-01T00:00:00Z') });
    try {
      const free = await frozen.createKey(await frozen.createProject('rate'));
      const statuses: number[] = [];
      for (let i = 0; i < 101; i++) statuses.push((await frozen.post('/v1/events', free, { events: [] })).status);
      expect(statuses.slice(0, 100).every((s) => s === 204)).toBe(true);
      expect(statuses[100]).toBe(429);
    } finally {
      await frozen.stop();
    }
  });
});

describe('key headers (an extension of the spec)', () => {
  const send = (headers: Record<string, string>, path = '/v1/events') =>
    fetch(`${stack.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('takes the key from X-Tally-Key or X-MGM-Key where Authorization is absent', async () => {
    expect((await send({ 'X-MGM-Key': key })).status).toBe(204);
    expect((await send({ 'x-tally-key': key }, '/api/events')).status).toBe(200);
    expect((await send({ 'X-Tally-Key': key, 'X-MGM-Key': 'tally_wrong' })).status).toBe(204);
    expect((await send({ 'X-Tally-Key': 'tally_wrong', 'X-MGM-Key': key })).status).toBe(401);
    const experiments = await fetch(`${stack.url}/v1/experiments?user_id=u1`, { headers: { 'X-MGM-Key': key } });
    expect(experiments.status).toBe(200);
  });

  it('never uses a key header when Authorization is present, and never on admin routes', async () => {
    expect((await send({ Authorization: 'Basic abc', 'X-MGM-Key': key })).status).toBe(401);
    expect((await send({ Authorization: 'Bearer tally_wrong', 'X-Tally-Key': key })).status).toBe(401);
    const admin = await fetch(`${stack.url}/admin/v1/projects`, { headers: { 'X-Tally-Key': ADMIN_TOKEN } });
    expect(admin.status).toBe(401);
  });
});

describe('CORS', () => {
  const preflight = (headers: Record<string, string>, path = '/v1/events') =>
    fetch(`${stack.url}${path}`, { method: 'OPTIONS', headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST', ...headers } });

  it('allows the headers the browser asks for', async () => {
    const asked = 'authorization,content-type,x-mgm-bundle-id,x-mgm-platform,x-mgm-platform-version,x-mgm-sdk,x-mgm-sdk-version';
    const res = await preflight({ 'Access-Control-Request-Headers': asked });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-allow-headers')).toBe(asked);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(res.headers.get('vary')).toBe('Origin, Access-Control-Request-Headers');
    const experiments = await preflight({ 'Access-Control-Request-Headers': 'authorization, content-type' }, '/v1/experiments/configs');
    expect(experiments.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
  });

  it('allows the spec headers under both prefixes when the request names none or a malformed list', async () => {
    const cases: Array<Record<string, string>> = [{}, { 'Access-Control-Request-Headers': 'x-mgm-sdk;evil' }, { 'Access-Control-Request-Headers': 'a,,b' }];
    for (const headers of cases) {
      const res = await preflight(headers);
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      for (const name of ['authorization', 'content-type', 'content-encoding', 'x-tally-key', 'x-mgm-key']) expect(allowed).toContain(name);
      for (const prefix of ['x-tally-', 'x-mgm-']) {
        for (const name of ['sdk', 'sdk-version', 'platform', 'platform-version', 'bundle-id']) expect(allowed).toContain(prefix + name);
      }
    }
  });
});

describe('routing', () => {
  it('unknown paths and wrong methods get 404 with a JSON error, in the /v1 shape on every path, as API Gateway answers them', async () => {
    const noRoute = { error: 'No such route: check the method and the path (docs/api.md lists the routes)' };
    const missing = await fetch(`${stack.url}/v2/events`, { method: 'POST' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual(noRoute);
    const wrong = await fetch(`${stack.url}/v1/events`, { method: 'GET', headers: { Authorization: `Bearer ${key}` } });
    expect(wrong.status).toBe(404);
    expect(await wrong.json()).toEqual(noRoute);
    const api = await fetch(`${stack.url}/api/nothing`, { method: 'POST' });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual(noRoute);
  });
});
