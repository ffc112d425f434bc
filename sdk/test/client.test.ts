import { gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { variantFor } from '../../lambdas/domain/bucketing';
import { snakeCase } from '../../lambdas/domain/experiment';
import { TallyClient, init } from '../src/index';
import { fakeFetch, fakeLogger, jsonResponse, settle, sharedStorage } from './fake-fetch';
import { testClient, useFakeClock } from './test-client';

const client = testClient;

const EXP = { id: '3f1c2a9e-8b7d-4c6e-9f10-2a3b4c5d6e7f', name: 'Checkout Flow', variants: ['control', 'one-page', 'express'] };

useFakeClock();

describe('calls that cannot be sent', () => {
  it('warn, are dropped, and never throw', async () => {
    const net = fakeFetch();
    const { c, logger } = client();
    const bad: Array<() => unknown> = [
      () => c.track(''),
      () => c.track('x'.repeat(256)),
      () => c.track(42 as never),
      () => c.track('ok', [1, 2] as never),
      () => c.track('ok', 'text' as never),
      () =>
        c.track('ok', {
          self: (() => {
            const o: any = {};
            o.o = o;
            return o;
          })(),
        }),
      () => c.identify(''),
      () => c.identify('u1', 'profile' as never),
      // The server's text rule: a string cut inside an emoji, a NUL.
      () => c.track('cut \ud83d'),
      () => c.track('nul\u0000'),
      () => c.identify('u\udc00'),
      () => c.identify('u\u0000'),
      () => c.setSuperProperties(null as never),
    ];
    for (const call of bad) expect(call).not.toThrow();
    expect(logger.warn).toHaveBeenCalledTimes(bad.length);
    expect(c.getVariant(undefined as never, 'fallback')).toBe('fallback');
    c.track('x'.repeat(255));
    await c.flush();
    expect(net.events().map((e) => e.name.length)).toEqual([255]);
  });

  it('a client without a key or URL is a silent no-op that reports once', async () => {
    const net = fakeFetch();
    const logger = fakeLogger();
    const c = init({ apiKey: '', baseURL: 'nope', logger });
    expect(() => {
      c.track('a');
      c.identify('u');
      c.reset();
    }).not.toThrow();
    await expect(c.flush()).resolves.toEqual({ pending: 0 });
    await expect(c.ready()).resolves.toEqual({ ok: false, reason: 'disabled' });
    expect(net.sent).toHaveLength(0);
    expect(logger.error).toHaveBeenCalledTimes(1);
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => new TallyClient(undefined as never)).not.toThrow();
    expect(consoleError).toHaveBeenCalledWith('[tally] disabled: Error: apiKey is required');
  });
});

describe('events', () => {
  it('carry the batch context and the metadata headers', async () => {
    const net = fakeFetch();
    const { c } = client({ appVersion: '2.1.0', environment: 'staging', bundleId: 'com.example.app' });
    c.track('opened', { screen: 'home' });
    await c.flush();
    const [post] = net.posts();
    expect(post!.headers).toMatchObject({
      Authorization: 'Bearer tk_test',
      'Content-Type': 'application/json',
      'X-Tally-SDK': 'tally-js',
      'X-Tally-SDK-Version': expect.stringMatching(/^\d+\.\d+\.\d+/),
      'X-Tally-Platform': 'node',
      'X-Tally-Platform-Version': process.versions.node,
      'X-Tally-Bundle-ID': 'com.example.app',
    });
    expect(post!.body.context).toEqual({
      platform: 'node',
      app_version: '2.1.0',
      os_version: process.platform,
      environment: 'staging',
      locale: Intl.DateTimeFormat().resolvedOptions().locale,
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
    expect(post!.body.events[0]).toEqual({
      name: 'opened',
      event_id: expect.any(String),
      timestamp: '2026-03-01T12:00:00.000Z',
      user_id: c.anonymousId,
      properties: { screen: 'home' },
    });
  });

  it('gzips bodies over 1 KB and not smaller ones', async () => {
    vi.useRealTimers();
    const bodies: Array<{ encoding: string | undefined; size: number }> = [];
    const net = fakeFetch();
    const real = globalThis.fetch as unknown as (u: string, i: RequestInit) => Promise<Response>;
    vi.stubGlobal('fetch', (u: string, i: RequestInit = {}) => {
      const h = (i.headers ?? {}) as Record<string, string>;
      if (i.body) bodies.push({ encoding: h['Content-Encoding'], size: (i.body as Uint8Array).length });
      if (h['Content-Encoding']) expect(JSON.parse(gunzipSync(i.body as Uint8Array).toString()).events).toHaveLength(1);
      return real(u, i);
    });
    const { c } = client();
    c.track('small');
    await c.flush();
    c.track('large', { text: 'lorem ipsum '.repeat(200) });
    await c.flush();
    expect(bodies.map((b) => b.encoding)).toEqual([undefined, 'gzip']);
    expect(bodies[1]!.size).toBeLessThan(1024);
    expect(net.events().map((e) => e.name)).toEqual(['small', 'large']);
  });

  it('super properties go on later events until unset', async () => {
    const net = fakeFetch();
    const { c } = client();
    c.setSuperProperties({ tier: 'gold', beta: true });
    c.track('a', { tier: 'override' });
    c.unsetSuperProperty('beta');
    c.track('b');
    await c.flush();
    expect(net.events().map((e) => e.properties)).toEqual([{ tier: 'override', beta: true }, { tier: 'gold' }]);
  });
});

describe('identity', () => {
  it('creates one persisted anonymous ID', () => {
    fakeFetch();
    const storage = sharedStorage();
    const first = client({ persistence: storage }).c.anonymousId;
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(client({ persistence: storage }).c.anonymousId).toBe(first);
    expect(client().c.anonymousId).not.toBe(first);
  });

  it('identify sends $identify once, and an identical call is not re-sent', async () => {
    const net = fakeFetch();
    const storage = sharedStorage();
    const { c } = client({ persistence: storage });
    c.identify('user-1', { email: 'a@example.com', name: 'Ada' });
    c.identify('user-1', { email: 'a@example.com', name: 'Ada' });
    client({ persistence: storage }).c.identify('user-1', { email: 'a@example.com', name: 'Ada' }); // after a reload too
    c.track('after');
    c.identify('user-1', { email: 'new@example.com' });
    await c.flush();
    const evs = net.delivered();
    expect(evs.map((e) => e.name)).toEqual(['$identify', 'after', '$identify']);
    expect(evs[0]).toMatchObject({ user_id: 'user-1', properties: { $anonymous_id: c.anonymousId, email: 'a@example.com', name: 'Ada' } });
    expect(evs[1]!.user_id).toBe('user-1');
    expect(c.userId).toBe('user-1');
  });

  it('reset() forgets the user; reset({ clearAnonymousId }) rotates the anonymous ID and clears assignments, exposures and super properties', async () => {
    const net = fakeFetch();
    const storage = sharedStorage();
    const { c } = client({ persistence: storage, experimentMode: 'local', localExperiments: [EXP] });
    c.setSuperProperties({ team: 'x' });
    const before = c.anonymousId;
    c.getVariant(EXP.name, 'control');
    c.identify('user-1');
    c.reset();
    expect(c.userId).toBeUndefined();
    expect(c.anonymousId).toBe(before);

    c.reset({ clearAnonymousId: true });
    const after = c.anonymousId;
    expect(after).not.toBe(before);
    expect(client({ persistence: storage }).c.anonymousId).toBe(after);
    for (const key of ['tally:sticky', 'tally:exposures', 'tally:super']) expect(storage.map.has(key)).toBe(false);
    expect(c.getVariant(EXP.name, 'none')).toBe(variantFor(EXP.id, after, EXP.variants));
    c.track('later');
    await c.flush();
    const evs = net.delivered();
    expect(evs.filter((e) => e.name === '$experiment_exposure').map((e) => e.user_id)).toEqual([before, after]);
    expect(evs.at(-1)).toMatchObject({ user_id: after, properties: { [`$experiment_checkout_flow`]: variantFor(EXP.id, after, EXP.variants) } });
    expect(evs.at(-1)!.properties.team).toBeUndefined();
  });
});

describe('server mode', () => {
  it('returns the fallback until assignments load, then the server variant; the answer is cached for the next start', async () => {
    let variant = 'b';
    const net = fakeFetch((req) =>
      req.url.pathname === '/v1/experiments' ? jsonResponse(200, { assigned_variants: { 'Checkout Flow': variant } }) : undefined,
    );
    const storage = sharedStorage();
    const { c } = client({ persistence: storage });
    expect(c.getVariant('Checkout Flow', 'control')).toBe('control');
    expect(await c.ready()).toEqual({ ok: true });
    expect(c.getVariant('Checkout Flow', 'control')).toBe('b');
    const get = net.sent.find((r) => r.url.pathname === '/v1/experiments')!;
    expect(Object.fromEntries(get.url.searchParams)).toEqual({ anonymous_id: c.anonymousId });

    variant = 'c';
    const next = client({ persistence: storage }).c;
    expect(next.getVariant('Checkout Flow', 'control')).toBe('b'); // served from the cache at once
    await next.ready();
    expect(next.getVariant('Checkout Flow', 'control')).toBe('c'); // revalidated
  });

  it('identify refetches assignments with both IDs, after the start-up request has finished', async () => {
    let answerFirst!: () => void;
    const first = new Promise<void>((resolve) => (answerFirst = resolve));
    const net = fakeFetch((req) =>
      req.url.pathname === '/v1/experiments' && !req.url.searchParams.has('user_id')
        ? (first.then(() => jsonResponse(200, { assigned_variants: {} })) as unknown as Response)
        : undefined,
    );
    const { c } = client();
    c.identify('user-9');
    await settle();
    // Sent together, the server could see the user ID first and make it the canonical ID.
    expect(net.sent.filter((r) => r.url.pathname === '/v1/experiments')).toHaveLength(1);
    answerFirst();
    await c.ready();
    const gets = net.sent.filter((r) => r.url.pathname === '/v1/experiments');
    expect(gets.map((r) => Object.fromEntries(r.url.searchParams))).toEqual([
      { anonymous_id: c.anonymousId },
      { anonymous_id: c.anonymousId, user_id: 'user-9' },
    ]);
  });

  it.each([401, 403])(
    'a refused key (%i): ready() says so, getVariant returns the fallback although an earlier start stored assignments, and the stored ones go',
    async (status) => {
      let refuse = false;
      fakeFetch((req) =>
        req.url.pathname === '/v1/experiments'
          ? refuse
            ? jsonResponse(status, { error: 'Invalid or missing API key' })
            : jsonResponse(200, { assigned_variants: { 'Checkout Flow': 'b' } })
          : undefined,
      );
      const storage = sharedStorage();
      const first = client({ persistence: storage }).c;
      await first.ready();
      expect(first.getVariant('Checkout Flow', 'control')).toBe('b');

      refuse = true;
      const { c, logger } = client({ persistence: storage });
      expect(await c.ready()).toEqual({ ok: false, reason: 'key_refused', status });
      expect(c.getVariant('Checkout Flow', 'control')).toBe('control');
      expect(storage.map.has('tally:assignments')).toBe(false);
      expect(logger.warn).toHaveBeenCalledWith(`[tally] experiments not loaded (${status}): key refused`);
    },
  );

  it('a server that cannot answer (503, network error): ready() says unavailable, and the stored assignments are still used', async () => {
    let answer: 'ok' | 'down' | 'offline' = 'ok';
    fakeFetch((req) =>
      req.url.pathname === '/v1/experiments'
        ? answer === 'offline'
          ? 'network-error'
          : answer === 'down'
            ? jsonResponse(503, { error: 'Service unavailable' })
            : jsonResponse(200, { assigned_variants: { 'Checkout Flow': 'b' } })
        : undefined,
    );
    const storage = sharedStorage();
    await client({ persistence: storage }).c.ready();
    answer = 'down';
    const down = client({ persistence: storage }).c;
    expect(await down.ready()).toEqual({ ok: false, reason: 'unavailable', status: 503 });
    expect(down.getVariant('Checkout Flow', 'control')).toBe('b');
    answer = 'offline';
    const offline = client({ persistence: storage }).c;
    expect(await offline.ready()).toEqual({ ok: false, reason: 'unavailable', status: undefined });
    expect(offline.getVariant('Checkout Flow', 'control')).toBe('b');
  });

  it('ready() resolves after its timeout when the server does not answer, and never rejects', async () => {
    vi.stubGlobal('fetch', () => new Promise(() => undefined));
    const { c } = client({ readyTimeoutMs: 3000 });
    let done: unknown = false;
    void c.ready().then((r) => (done = r));
    await vi.advanceTimersByTimeAsync(2999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toEqual({ ok: false, reason: 'timeout' });
    let early = false;
    void c.ready(100).then(() => (early = true));
    await vi.advanceTimersByTimeAsync(100);
    expect(early).toBe(true);
  });
});

describe('local mode', () => {
  it('buckets with the server bucketing, persists per experiment UUID, and identify never re-buckets', async () => {
    const net = fakeFetch();
    const storage = sharedStorage();
    const { c } = client({ persistence: storage, experimentMode: 'local', localExperiments: [EXP] });
    await c.ready();
    expect(net.sent).toHaveLength(0); // inline configs: no experiments request
    const expected = variantFor(EXP.id, c.anonymousId, EXP.variants);
    expect(c.getVariant(EXP.name, 'fallback')).toBe(expected);
    // Find a user ID that hashes to another variant: identify must not move the visitor to it.
    const other = Array.from({ length: 50 }, (_, i) => `user-${i}`).find((id) => variantFor(EXP.id, id, EXP.variants) !== expected)!;
    c.identify(other);
    expect(c.getVariant(EXP.name, 'fallback')).toBe(expected);
    expect(JSON.parse(storage.map.get('tally:sticky')!)).toEqual({ [EXP.id]: expected });
    expect(c.getVariant('Unknown', 'fallback')).toBe('fallback');
  });

  it('fetches configs from /v1/experiments/configs without user IDs when none are inline', async () => {
    const net = fakeFetch((req) => (req.url.pathname === '/v1/experiments/configs' ? jsonResponse(200, { experiments: [EXP] }) : undefined));
    const { c } = client({ experimentMode: 'local' });
    expect(c.getVariant(EXP.name, 'fallback')).toBe('fallback');
    await c.ready();
    expect(c.getVariant(EXP.name, 'fallback')).toBe(variantFor(EXP.id, c.anonymousId, EXP.variants));
    expect(net.sent.map((r) => r.url.pathname + r.url.search)).toEqual(['/v1/experiments/configs']);
  });
});

describe('exposure', () => {
  it('is tracked once per user, experiment and variant, across restarts, and later events carry the super property', async () => {
    const net = fakeFetch((req) =>
      req.url.pathname === '/v1/experiments' ? jsonResponse(200, { assigned_variants: { 'Checkout Flow': 'b', newNav: 'on' } }) : undefined,
    );
    const storage = sharedStorage();
    const { c } = client({ persistence: storage });
    await c.ready();
    c.getVariant('Checkout Flow', 'a');
    c.getVariant('Checkout Flow', 'a');
    c.getVariant('newNav', 'off');
    const next = client({ persistence: storage }).c;
    await next.ready();
    next.getVariant('Checkout Flow', 'a');
    next.track('purchase');
    await c.flush();
    await next.flush();
    const evs = net.delivered();
    const exposures = evs.filter((e) => e.name === '$experiment_exposure');
    expect(exposures.map((e) => [e.properties.$experiment_name, e.properties.$variant])).toEqual([
      ['Checkout Flow', 'b'],
      ['newNav', 'on'],
    ]);
    // Both exposures share name and user: distinct timestamps keep the server from deduplicating one away.
    expect(new Set(exposures.map((e) => e.timestamp)).size).toBe(2);
    const purchase = evs.find((e) => e.name === 'purchase')!;
    expect(purchase.properties).toEqual({ [`$experiment_${snakeCase('Checkout Flow')}`]: 'b', $experiment_new_nav: 'on' });
  });
});

describe('privacy', () => {
  it('an opted-out client sends nothing and stores nothing new; optIn resumes', async () => {
    const net = fakeFetch();
    const storage = sharedStorage();
    const { c } = client({ persistence: storage, optOut: true, experimentMode: 'local', localExperiments: [EXP] });
    c.track('a');
    c.identify('u1');
    expect(c.getVariant(EXP.name, 'fallback')).toBe('fallback'); // a local variant would be known
    expect(await c.flush()).toEqual({ pending: 0 });
    expect(await c.ready()).toEqual({ ok: false, reason: 'opted_out' });
    expect(net.sent).toHaveLength(0);
    expect([...storage.map.keys()]).toEqual([]);

    c.optIn();
    c.track('b');
    await c.flush();
    expect(net.events().map((e) => e.name)).toEqual(['b']);

    c.track('queued');
    c.optOut();
    c.track('c');
    await c.flush();
    expect(net.events().map((e) => e.name)).toEqual(['b']);
    // The choice is remembered: the next start is opted out too.
    const next = client({ persistence: storage }).c;
    next.track('d');
    await next.flush();
    expect(net.events().map((e) => e.name)).toEqual(['b']);
  });

  it.each([
    ['Do Not Track', { doNotTrack: '1' }],
    ['Global Privacy Control', { globalPrivacyControl: true }],
  ])('respectDoNotTrack honours %s', async (_, nav) => {
    vi.stubGlobal('navigator', nav);
    const net = fakeFetch();
    client({ respectDoNotTrack: true }).c.track('a');
    const ignoring = client().c;
    ignoring.track('b');
    await ignoring.flush();
    expect(net.events().map((e) => e.name)).toEqual(['b']);
  });

  it('uses no cookies', () => {
    const jar = { cookie: '' };
    vi.stubGlobal('document', jar);
    fakeFetch();
    const { c } = client();
    c.track('a');
    c.identify('u');
    expect(jar.cookie).toBe('');
  });
});

it('flush resolves when delivery must wait, and shutdown stops the timers', async () => {
  const net = fakeFetch(() => 'network-error');
  const { c } = client({ flushIntervalMs: 1000 });
  c.track('a');
  await expect(c.flush()).resolves.toEqual({ pending: 1, reason: 'will_retry' });
  await c.shutdown();
  const count = net.sent.length;
  await vi.advanceTimersByTimeAsync(10 * 60_000);
  expect(net.sent.length).toBe(count);
  void settle;
});
