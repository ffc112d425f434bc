/**
 * The published MGM JavaScript SDK (@mostly-good-metrics/javascript, the version npm has: 0.5.1),
 * unchanged, in Node against the local server: only its baseURL points at Tally. What it sends must
 * arrive stored with every field, gzip above 1 KB, identify moves events to the user ID, and a
 * bundle-restricted key accepts its X-MGM-Bundle-Id (an unlisted one is refused with 403, which the
 * SDK treats as final). The browser half, with real CORS, is mgm-sdk.browser.test.ts.
 */
import { MostlyGoodMetrics, type MGMError } from '@mostly-good-metrics/javascript';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;

/** What 0.5.1 sends as X-MGM-SDK-Version when none is configured (its SDK_VERSION constant). */
const SDK_051_VERSION_HEADER = '0.4.0';

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('mgm sdk in node'));
});
afterEach(() => {
  MostlyGoodMetrics.shared?.resetIdentity();
  MostlyGoodMetrics.reset();
  vi.restoreAllMocks();
});
afterAll(() => stack.stop());

interface Sent {
  url: string;
  status: number;
  headers: Record<string, string>;
}

/** Configures the SDK as an app would, recording (not changing) the requests it makes. */
function configure(options: { apiKey?: string; bundleId?: string } = {}) {
  const sent: Sent[] = [];
  const errors: MGMError[] = [];
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const response = await realFetch(input, init);
    sent.push({ url: String(input), status: response.status, headers: { ...(init?.headers as Record<string, string>) } });
    return response;
  });
  const sdk = MostlyGoodMetrics.configure({
    apiKey: options.apiKey ?? key,
    baseURL: stack.url,
    environment: 'staging',
    appVersion: '3.2.1',
    osVersion: 'Node 20',
    flushInterval: 3600,
    maxBatchSize: 100,
    ...(options.bundleId ? { bundleId: options.bundleId } : {}),
    onError: (err) => errors.push(err),
  });
  return { sdk, sent, errors };
}

/** The SDK stores tracked events asynchronously; let that settle, then flush. */
async function flush() {
  await new Promise((resolve) => setTimeout(resolve, 20));
  await MostlyGoodMetrics.flush();
}

describe('MGM JavaScript SDK 0.5.1 in Node', () => {
  it('stores events with every field the SDK sends, sdk and sdk_version from its X-MGM headers', async () => {
    const { sdk, sent } = configure();
    MostlyGoodMetrics.setSuperProperty('plan_tier', 'gold');
    MostlyGoodMetrics.track('checkout_started', { cart_value: 42.5, items: ['a', 'b'], nested: { coupon: 'SPRING' } });
    await flush();
    expect(sent.map((s) => s.status)).toEqual([204]);
    expect(sent[0]!.headers).toMatchObject({ 'X-MGM-SDK': 'javascript', 'X-MGM-SDK-Version': SDK_051_VERSION_HEADER, 'X-MGM-Platform': 'node' });

    const stored = stack.rawEvents(project).filter((e) => e.name === 'checkout_started');
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      project_id: project,
      name: 'checkout_started',
      event_id: expect.any(String),
      user_id: sdk.anonymousId,
      sent_user_id: sdk.anonymousId,
      session_id: sdk.sessionId,
      platform: 'node',
      app_version: '3.2.1',
      os_version: 'Node 20',
      environment: 'staging',
      locale: expect.any(String),
      timezone: expect.any(String),
      sdk: 'javascript',
      sdk_version: SDK_051_VERSION_HEADER,
      source: 'v1',
      properties: {
        plan_tier: 'gold',
        cart_value: 42.5,
        items: ['a', 'b'],
        nested: { coupon: 'SPRING' },
        $sdk: 'javascript',
        $device_type: expect.any(String),
      },
    });
    const listed = await stack.admin('GET', `/admin/v1/projects/${project}/events?user_id=${encodeURIComponent(sdk.anonymousId)}&name=checkout_started`);
    expect(listed.body.events).toHaveLength(1);
    expect(listed.body.events[0]).toMatchObject({
      event_id: stored[0]!.event_id,
      sdk: 'javascript',
      sdk_version: SDK_051_VERSION_HEADER,
      environment: 'staging',
    });
  });

  it('gzips bodies over 1 KB, and Tally stores every event of them', async () => {
    const { sdk, sent } = configure();
    for (let i = 0; i < 30; i++) {
      MostlyGoodMetrics.track('scrolled', { depth: i, padding: 'x'.repeat(60) });
      // Apart in time: same name, user and millisecond would be one event under the spec's dedupe key.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await flush();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ status: 204, headers: { 'Content-Encoding': 'gzip' } });
    const stored = stack.rawEvents(project).filter((e) => e.name === 'scrolled' && e.sent_user_id === sdk.anonymousId);
    expect(stored.map((e) => e.properties.depth).sort((a, b) => Number(a) - Number(b))).toEqual([...Array(30).keys()]);
  });

  it('identify: $identify carries the profile and later events arrive under the user ID', async () => {
    const { sdk } = configure();
    const anonymous = sdk.anonymousId;
    MostlyGoodMetrics.track('landing_viewed');
    await flush();
    MostlyGoodMetrics.identify('node-user-1', { email: 'ada@example.com', name: 'Ada' });
    MostlyGoodMetrics.track('subscribed', { plan: 'pro' });
    await flush();
    const mine = stack.rawEvents(project).filter((e) => e.sent_user_id === 'node-user-1');
    expect(mine.map((e) => e.name).sort()).toEqual(['$identify', 'subscribed']);
    expect(mine.every((e) => e.user_id === 'node-user-1')).toBe(true);
    expect(stack.rawEvents(project).find((e) => e.name === 'landing_viewed')!.sent_user_id).toBe(anonymous);
    const profile = await stack.admin('GET', `/admin/v1/projects/${project}/users/node-user-1`);
    expect(profile.body).toMatchObject({ user_id: 'node-user-1', email: 'ada@example.com', name: 'Ada' });
  });

  it("a bundle-restricted key accepts the SDK's X-MGM-Bundle-Id and refuses an unlisted one with 403", async () => {
    const restricted = await stack.createKey(project, { allowed_bundle_ids: ['com.acme.shop'] });
    const listed = configure({ apiKey: restricted, bundleId: 'com.acme.shop' });
    MostlyGoodMetrics.track('bundle_listed');
    await flush();
    expect(listed.sent[0]).toMatchObject({ status: 204, headers: { 'X-MGM-Bundle-Id': 'com.acme.shop' } });
    expect(stack.rawEvents(project).filter((e) => e.name === 'bundle_listed')).toHaveLength(1);
    MostlyGoodMetrics.reset();
    vi.restoreAllMocks();

    const unlisted = configure({ apiKey: restricted, bundleId: 'com.other.app' });
    MostlyGoodMetrics.track('bundle_unlisted');
    await flush();
    expect(unlisted.sent.map((s) => s.status)).toEqual([403]);
    expect(unlisted.errors.map((e) => [e.type, e.statusCode])).toEqual([['FORBIDDEN', 403]]);
    expect(stack.rawEvents(project).filter((e) => e.name === 'bundle_unlisted')).toHaveLength(0);
  });
});
