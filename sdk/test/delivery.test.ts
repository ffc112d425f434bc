import { describe, expect, it, vi } from 'vitest';
import { BACKOFF_CAP_MS, backoffDelay } from '../src/backoff';
import { fakeFetch, jsonResponse, settle, sharedStorage, type Sent } from './fake-fetch';
import { testClient, useFakeClock } from './test-client';

const events = (req: Sent) => req.url.pathname === '/v1/events';

const client = testClient;

useFakeClock();

describe('retries', () => {
  it('reuses each event_id and timestamp unchanged on every retry', async () => {
    let n = 0;
    const net = fakeFetch((req) => (events(req) && ++n <= 2 ? new Response('', { status: 500 }) : undefined));
    const { c } = client();
    c.track('signup', { plan: 'pro' });
    c.track('signup', { plan: 'pro' });
    await c.flush();
    await vi.advanceTimersByTimeAsync(BACKOFF_CAP_MS * 2);
    const posts = net.posts();
    expect(posts).toHaveLength(3);
    const first = posts[0]!.body.events;
    expect(first).toHaveLength(2);
    expect(first[0].event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first[0].event_id).not.toBe(first[1].event_id);
    // Same name and user: the second timestamp is a millisecond later, or the server would dedupe it away.
    expect(Date.parse(first[1].timestamp)).toBeGreaterThan(Date.parse(first[0].timestamp));
    for (const post of posts) expect(post.body.events).toEqual(first);
  });

  it('backs off exponentially with jitter after network errors, capped', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const net = fakeFetch((req) => (events(req) ? 'network-error' : undefined));
    const { c } = client();
    c.track('a');
    await c.flush();
    await vi.advanceTimersByTimeAsync(7500);
    // random 0 is the lower edge of the jitter: waits of 500, 1000, 2000, 4000 ms.
    expect(net.posts().map((r) => r.at - net.posts()[0]!.at)).toEqual([0, 500, 1500, 3500, 7500]);

    expect(backoffDelay(1, () => 1)).toBe(1000);
    expect(backoffDelay(3, () => 0.5)).toBe(3000);
    expect(backoffDelay(3, () => 0.1)).not.toBe(backoffDelay(3, () => 0.9));
    expect(backoffDelay(40, () => 1)).toBe(BACKOFF_CAP_MS);
    expect(backoffDelay(40, () => 0)).toBe(BACKOFF_CAP_MS / 2);
  });

  it.each([429, 503])('waits at least Retry-After after a %i', async (status) => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let n = 0;
    const net = fakeFetch((req) =>
      events(req) && ++n === 1 ? jsonResponse(status, { error: 'Rate limit exceeded', retry_after: 7 }, { 'Retry-After': '7' }) : undefined,
    );
    const { c } = client();
    c.track('a');
    expect(await c.flush()).toEqual({ pending: 1, reason: 'will_retry' });
    c.track('b'); // a new event must not cut the wait short
    await vi.advanceTimersByTimeAsync(6999);
    expect(net.posts()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(net.posts()).toHaveLength(2);
    expect(net.posts()[1]!.body.events.map((e: any) => e.name)).toEqual(['a', 'b']);
  });

  it('resumes at once when the browser comes back online', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const window = new EventTarget();
    vi.stubGlobal('addEventListener', window.addEventListener.bind(window));
    let offline = true;
    const net = fakeFetch((req) => (events(req) && offline ? 'network-error' : undefined));
    const { c } = client();
    c.track('a');
    await c.flush();
    await vi.advanceTimersByTimeAsync(3000); // attempts at 0, 1000 and 3000; the next is 4000 ms away
    expect(net.posts()).toHaveLength(3);
    offline = false;
    window.dispatchEvent(new Event('online'));
    await settle();
    expect(net.posts()).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(net.posts()).toHaveLength(4); // delivered: nothing left to retry
  });
});

describe('batching', () => {
  it('sends a full batch at once and the rest on the interval', async () => {
    const net = fakeFetch();
    const { c } = client({ maxBatchSize: 3, flushIntervalMs: 2000 });
    c.track('a');
    c.track('b');
    await settle();
    expect(net.posts()).toHaveLength(0);
    c.track('c');
    await settle();
    expect(net.posts().map((r) => r.body.events.length)).toEqual([3]);
    c.track('d');
    await vi.advanceTimersByTimeAsync(1999);
    expect(net.posts()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(net.posts()[1]!.body.events.map((e: any) => e.name)).toEqual(['d']);
  });

  it('keeps at most maxQueueSize events, dropping the oldest with a warning', async () => {
    const net = fakeFetch();
    const { c, logger } = client({ maxQueueSize: 3, maxBatchSize: 100 });
    for (const name of ['e1', 'e2', 'e3', 'e4', 'e5']) c.track(name);
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn.mock.calls[0]![0]).toMatch(/queue full/);
    await c.flush();
    expect(net.events().map((e) => e.name)).toEqual(['e3', 'e4', 'e5']);
  });
});

describe('persistence', () => {
  it("two tabs sharing the stored queue keep each other's events: the next page sends them all", async () => {
    let down = true;
    const net = fakeFetch((req) => (events(req) && down ? 'network-error' : undefined));
    const storage = sharedStorage();
    const tabA = client({ persistence: storage }).c;
    const tabB = client({ persistence: storage }).c;
    tabA.track('a1');
    tabB.track('b1');
    tabA.track('a2');
    await Promise.all([tabA.flush(), tabB.flush()]);
    await Promise.all([tabA.shutdown(), tabB.shutdown()]); // both tabs die undelivered
    down = false;
    const next = client({ persistence: storage }).c;
    await next.flush();
    expect(
      net
        .delivered()
        .map((e) => e.name)
        .sort(),
    ).toEqual(['a1', 'a2', 'b1']);
    expect(JSON.parse(storage.map.get('tally:queue')!)).toEqual([]);
  });
});

describe('rejections', () => {
  it('drops only the events a 400 names, with a warning, and sends the rest', async () => {
    let n = 0;
    const net = fakeFetch((req) =>
      events(req) && ++n === 1 ? jsonResponse(400, { error: 'Validation failed', details: [{ index: 1, error: 'properties too large' }] }) : undefined,
    );
    const { c, logger } = client();
    c.track('first');
    c.track('bad');
    c.track('third');
    await c.flush();
    expect(net.posts().map((r) => r.body.events.map((e: any) => e.name))).toEqual([
      ['first', 'bad', 'third'],
      ['first', 'third'],
    ]);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![0]).toMatch(/dropped 1 invalid events: bad/);
  });

  it('drops the whole batch for a 400 without usable details, instead of resending it forever', async () => {
    let n = 0;
    const net = fakeFetch((req) =>
      events(req) && ++n <= 2
        ? jsonResponse(400, n === 1 ? { error: 'Invalid payload format' } : { error: 'Validation failed', details: [{ index: 7 }] })
        : undefined,
    );
    const { c, logger } = client();
    c.track('x');
    await c.flush();
    c.track('y');
    await c.flush();
    c.track('z');
    await c.flush();
    expect(net.posts().map((r) => r.body.events.map((e: any) => e.name))).toEqual([['x'], ['y'], ['z']]);
    expect(logger.warn).toHaveBeenCalledTimes(2);
  });

  it.each([401, 403])('stops on %i, reports once, and keeps the queue for a right key', async (status) => {
    const storage = sharedStorage();
    let answer: Response | undefined = jsonResponse(status, { error: 'Invalid or missing API key' });
    const net = fakeFetch((req) => (events(req) ? answer?.clone() : undefined));
    const { c, logger } = client({ persistence: storage });
    c.track('a');
    // flush() says what it could not send, and why.
    expect(await c.flush()).toEqual({ pending: 1, reason: 'key_refused' });
    c.track('b');
    expect(await c.flush()).toEqual({ pending: 2, reason: 'key_refused' });
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(net.posts()).toHaveLength(1);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.error.mock.calls[0]![0]).toBe(`[tally] key refused (${status}): sending stopped, 1 events kept for retry`);

    // The next start (a fixed key, a server that accepts it) delivers everything that was kept.
    answer = undefined;
    await c.shutdown();
    const next = client({ persistence: storage }).c;
    expect(await next.flush()).toEqual({ pending: 0 });
    expect(
      net
        .posts()
        .at(-1)!
        .body.events.map((e: any) => e.name),
    ).toEqual(['a', 'b']);
  });
});

describe('page hide', () => {
  it('posts the queue with fetch keepalive, uncompressed, and keeps it until the answer', async () => {
    const window = new EventTarget();
    vi.stubGlobal('addEventListener', window.addEventListener.bind(window));
    let release!: (r: Response) => void;
    const net = fakeFetch((req) => (events(req) ? (new Promise<Response>((r) => (release = r)) as unknown as Response) : undefined));
    const storage = sharedStorage();
    const { c } = client({ persistence: storage });
    c.track('checkout', { big: 'x'.repeat(2000) });
    window.dispatchEvent(new Event('pagehide'));
    await settle();
    const [post] = net.posts();
    expect(post!.keepalive).toBe(true);
    expect(post!.headers.Authorization).toBe('Bearer tk_test');
    expect(post!.headers['Content-Encoding']).toBeUndefined();
    expect(post!.body.events.map((e: any) => e.name)).toEqual(['checkout']);
    expect(JSON.parse(storage.map.get('tally:queue')!)).toHaveLength(1); // the page may die before the answer
    release(new Response(null, { status: 204 }));
    await settle();
    expect(JSON.parse(storage.map.get('tally:queue')!)).toHaveLength(0);
    void c;
  });
});
