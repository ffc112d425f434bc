/**
 * The published MGM JavaScript SDK, unchanged, in real headless Chromium against the local server.
 * The test page is served from another origin (servePages), and the SDK's dist/esm files are loaded
 * as modules, so every request is a real cross-origin one: preflight, then the request, each failing
 * in the browser if Tally's CORS answers were wrong.
 *
 * Why part of this file reproduces requests by hand: npm has only 0.5.1 of the SDK, which has no
 * experiments API and whose identify sends no $anonymous_id. The SDK's repository is at 0.10.0, and
 * that is what teams run. For server and local experiments and identify-linking, the page makes, with
 * fetch from the other origin, exactly the requests 0.10.0 makes (src/client.ts, src/network.ts):
 *  - GET /v1/experiments?user_id=<id>[&anonymous_id=<anon>] with Authorization and
 *    Content-Type: application/json (server mode, and its refetch after identify);
 *  - GET /v1/experiments/configs with the same headers (local mode), then on-device bucketing;
 *  - POST /v1/events with its X-MGM-SDK, X-MGM-SDK-Version 0.10.0, X-MGM-Platform,
 *    X-MGM-Platform-Version and X-MGM-Bundle-Id headers; events carrying its super property
 *    $experiment_<its snake_case of the name> ("Hero Banner" -> $experiment_hero__banner), its
 *    $experiment_exposure, and its $identify with $anonymous_id.
 * Tally's answers and the enrolled results are asserted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { variantFor } from '../../lambdas/domain/bucketing';
import { describeBrowser, launchBrowser, servePages } from '../helpers/browser';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

/** The SDK's ES modules, as the package ships them (their imports omit ".js": an import map adds it). */
function sdkFiles(): Record<string, string> {
  const cjsEntry = createRequire(import.meta.url).resolve('@mostly-good-metrics/javascript');
  const esmDir = join(dirname(dirname(cjsEntry)), 'esm');
  const files: Record<string, string> = {};
  for (const name of readdirSync(esmDir).filter((f) => f.endsWith('.js'))) files[`/sdk/${name}`] = readFileSync(join(esmDir, name), 'utf8');
  return files;
}

const PAGE_SCRIPT = String.raw`
import * as sdk from '/sdk/index.js';

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let lastStamp = 0;
/** new Date().toISOString(), as the SDK stamps events, a millisecond apart so none dedupe. */
async function stamp() {
  while (Date.now() <= lastStamp) await pause(1);
  lastStamp = Date.now();
  return new Date(lastStamp).toISOString();
}

/** Runs the published SDK (0.5.1) as an app would: configure, track/identify, flush. */
window.runSdk = async ({ config, steps }) => {
  const MGM = sdk.MostlyGoodMetrics;
  const errors = [];
  MGM.configure({ flushInterval: 3600, ...config, onError: (e) => errors.push([e.type, e.statusCode ?? null]) });
  for (const step of steps) {
    if (step.track) MGM.track(step.track, step.properties);
    if (step.identify) MGM.identify(step.identify, step.profile);
    await pause(step.pauseMs ?? 2);
  }
  await pause(30);
  await MGM.flush();
  return { errors, anonymousId: MGM.shared.anonymousId, sessionId: MGM.shared.sessionId, pending: await MGM.getPendingEventCount() };
};

/** The requests SDK 0.10.0 makes, byte for byte where it matters (see the test file's header). */
window.sdk010 = {
  async experiments(baseURL, apiKey, userId, anonymousId) {
    let url = baseURL + '/v1/experiments?user_id=' + encodeURIComponent(userId);
    if (anonymousId && userId !== anonymousId) url += '&anonymous_id=' + encodeURIComponent(anonymousId);
    const res = await fetch(url, { method: 'GET', headers: { Authorization: 'Bearer ' + apiKey, 'Content-Type': 'application/json' } });
    return { status: res.status, body: await res.json() };
  },
  async configs(baseURL, apiKey) {
    const res = await fetch(baseURL + '/v1/experiments/configs', { method: 'GET', headers: { Authorization: 'Bearer ' + apiKey, 'Content-Type': 'application/json' } });
    return { status: res.status, body: await res.json() };
  },
  /** On-device bucketing of local mode: first 8 bytes of SHA-256("<uuid>:<id>"), big-endian, modulo. */
  async bucket(experimentId, userId, variants) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(experimentId + ':' + userId)));
    let bucket = 0n;
    for (let i = 0; i < 8; i++) bucket = (bucket << 8n) | BigInt(digest[i]);
    return variants[Number(bucket % BigInt(variants.length))];
  },
  /** One tracked event as 0.10.0 builds it: super properties < event properties < system properties. */
  async event(name, userId, sessionId, superProperties, properties) {
    return {
      name, client_event_id: crypto.randomUUID(), timestamp: await stamp(), user_id: userId, session_id: sessionId,
      platform: 'web', os_version: 'Linux', environment: 'production', locale: navigator.language, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      properties: { ...superProperties, ...properties, $device_type: 'desktop', $device_model: 'unknown', $sdk: 'javascript' },
    };
  },
  /** POST /v1/events with 0.10.0's headers, gzip above 1 KB through CompressionStream. */
  async send(baseURL, apiKey, events, userId, sessionId) {
    const context = { platform: 'web', os_version: 'Linux', user_id: userId, session_id: sessionId, environment: 'production', locale: navigator.language, timezone: Intl.DateTimeFormat().resolvedOptions().timeZone };
    const json = JSON.stringify({ events, context });
    const headers = {
      'Content-Type': 'application/json', Authorization: 'Bearer ' + apiKey, 'X-MGM-SDK': 'javascript', 'X-MGM-SDK-Version': '0.10.0',
      'X-MGM-Platform': 'web', 'X-MGM-Platform-Version': 'Linux', 'X-MGM-Bundle-Id': location.hostname,
    };
    let body = json;
    if (new TextEncoder().encode(json).length >= 1024) {
      body = await new Response(new Blob([json]).stream().pipeThrough(new CompressionStream('gzip'))).blob();
      headers['Content-Encoding'] = 'gzip';
    }
    const res = await fetch(baseURL + '/v1/events', { method: 'POST', headers, body });
    return res.status;
  },
};
window.pageReady = true;
`;

function pageFiles(): Record<string, string> {
  const sdk = sdkFiles();
  const imports = Object.fromEntries(Object.keys(sdk).map((path) => [path.replace(/\.js$/, ''), path]));
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>MGM SDK compat</title>
<script type="importmap">${JSON.stringify({ imports })}</script>
<script type="module" src="/page.js"></script></head><body>compat</body></html>`;
  return { ...sdk, '/index.html': html, '/page.js': PAGE_SCRIPT };
}

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
}

describeBrowser('MGM JavaScript SDK in headless Chromium, page served from another origin', () => {
  let stack: TestStack;
  let browser: Browser;
  let pages: { origin: string; close(): Promise<void> };
  let project: string;
  let key: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [stack, browser, pages] = await Promise.all([startTestStack(), launchBrowser(), servePages(pageFiles())]);
    project = await stack.createProject('mgm sdk in chromium');
    key = await stack.createKey(project, UNTHROTTLED_KEY);
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await pages?.close();
    await stack?.stop();
  });

  /** A fresh visitor: its own browser context (storage, cookies), the page loaded from the pages origin. */
  async function visit(): Promise<{ page: Page; seen: Seen[] }> {
    const context = await browser.createBrowserContext();
    contexts.push(context);
    const page = await context.newPage();
    const seen: Seen[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(stack.url)) seen.push({ method: request.method(), url: request.url(), headers: request.headers() });
    });
    await page.goto(`${pages.origin}/index.html`);
    await page.waitForFunction('window.pageReady === true', { timeout: 10_000 });
    expect(new URL(pages.origin).origin).not.toBe(new URL(stack.url).origin);
    return { page, seen };
  }

  const call = <T>(page: Page, fn: string, ...args: unknown[]): Promise<T> => page.evaluate(`${fn}(...${JSON.stringify(args)})`) as Promise<T>;

  interface SdkRun {
    errors: Array<[string, number | null]>;
    anonymousId: string;
    sessionId: string;
    pending: number;
  }
  const runSdk = (page: Page, config: Record<string, unknown>, steps: unknown[]) =>
    call<SdkRun>(page, 'window.runSdk', { config: { apiKey: key, baseURL: stack.url, ...config }, steps });

  it('stores events with every field, gzip over 1 KB, and identify moves events to the user ID', async () => {
    const { page, seen } = await visit();
    const steps = [
      { track: 'page_view', properties: { path: '/pricing', referrer: 'https://search.example/' } },
      ...Array.from({ length: 25 }, (_, i) => ({ track: 'scrolled', properties: { depth: i, padding: 'x'.repeat(60) } })),
      { identify: 'browser-user-1', profile: { email: 'grace@example.com', name: 'Grace' } },
      { track: 'subscribed', properties: { plan: 'pro' } },
    ];
    const run = await runSdk(page, { appVersion: '5.0.0', environment: 'production' }, steps);
    expect(run.errors).toEqual([]);
    expect(run.pending).toBe(0);

    const posts = seen.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.headers).toMatchObject({ 'content-encoding': 'gzip', 'x-mgm-sdk': 'javascript', 'x-mgm-bundle-id': '127.0.0.1' });

    const mine = stack.rawEvents(project).filter((e) => e.session_id === run.sessionId);
    expect(mine.filter((e) => e.name === 'scrolled')).toHaveLength(25);
    const view = mine.find((e) => e.name === 'page_view')!;
    expect(view).toMatchObject({
      project_id: project,
      event_id: expect.any(String),
      user_id: run.anonymousId,
      sent_user_id: run.anonymousId,
      session_id: run.sessionId,
      platform: 'web',
      app_version: '5.0.0',
      os_version: 'Linux',
      environment: 'production',
      locale: expect.any(String),
      timezone: expect.any(String),
      sdk: 'javascript',
      sdk_version: '0.4.0',
      source: 'v1',
      properties: { path: '/pricing', referrer: 'https://search.example/', $sdk: 'javascript', $device_type: 'desktop' },
    });
    // identify: $identify and later events under the user ID.
    expect(
      mine
        .filter((e) => e.sent_user_id === 'browser-user-1')
        .map((e) => e.name)
        .sort(),
    ).toEqual(['$identify', 'subscribed']);
    const listed = await stack.admin('GET', `/admin/v1/projects/${project}/events?user_id=browser-user-1`);
    expect(listed.body.events.map((e: { name: string }) => e.name).sort()).toEqual(['$identify', 'subscribed']);
    expect(listed.body.events[0]).toMatchObject({ sdk: 'javascript', sdk_version: '0.4.0', platform: 'web' });
  });

  it('an allowed origin is served and a disallowed one gets 403, which the page can read', async () => {
    const allowed = await stack.createKey(project, { allowed_origins: [pages.origin] });
    const denied = await stack.createKey(project, { allowed_origins: ['https://shop.example'] });
    const ok = await runSdk((await visit()).page, { apiKey: allowed }, [{ track: 'origin_allowed' }]);
    expect(ok.errors).toEqual([]);
    expect(stack.rawEvents(project).filter((e) => e.name === 'origin_allowed')).toHaveLength(1);
    const refused = await runSdk((await visit()).page, { apiKey: denied }, [{ track: 'origin_denied' }]);
    // FORBIDDEN with its status, not a network error: the 403 carries CORS headers.
    expect(refused.errors).toEqual([['FORBIDDEN', 403]]);
    expect(stack.rawEvents(project).filter((e) => e.name === 'origin_denied')).toHaveLength(0);
  });

  it('a bundle-restricted key accepts a listed X-MGM-Bundle-Id and refuses an unlisted one with 403', async () => {
    const restricted = await stack.createKey(project, { allowed_bundle_ids: ['com.acme.web'] });
    const listed = await runSdk((await visit()).page, { apiKey: restricted, bundleId: 'com.acme.web' }, [{ track: 'bundle_listed' }]);
    expect(listed.errors).toEqual([]);
    expect(stack.rawEvents(project).filter((e) => e.name === 'bundle_listed')).toHaveLength(1);
    // In a browser the SDK sends the page's host name when no bundleId is configured: not listed.
    const unlisted = await runSdk((await visit()).page, { apiKey: restricted }, [{ track: 'bundle_unlisted' }]);
    expect(unlisted.errors).toEqual([['FORBIDDEN', 403]]);
    expect(stack.rawEvents(project).filter((e) => e.name === 'bundle_unlisted')).toHaveLength(0);
  });

  it('SDK 0.10.0 requests: server and local experiments, identify with $anonymous_id, enrolled results', async () => {
    const base = `/admin/v1/projects/${project}/experiments`;
    const create = async (name: string, goal: string, variants: string[]) => {
      const created = await stack.admin('POST', base, { name, goal_event: goal, variants });
      expect((await stack.admin('POST', `${base}/${created.body.id}/start`)).status).toBe(200);
      return created.body as { id: string; name: string; variants: string[] };
    };
    const hero = await create('Hero Banner', 'purchase', ['control', 'treatment']);
    const pricing = await create('Pricing Page', 'signup', ['a', 'b', 'c']);
    const { page } = await visit();
    const sdk = (fn: string, ...args: unknown[]) => call<any>(page, `window.sdk010.${fn}`, ...args);

    // Server mode, anonymous visitor.
    const anon = 'anon-0f3c2a9e-1111';
    const session = 'session-1';
    const assigned = await sdk('experiments', stack.url, key, anon);
    expect(assigned.status).toBe(200);
    const variant = assigned.body.assigned_variants['Hero Banner'] as string;
    expect(hero.variants).toContain(variant);
    // getVariant: the super property under the SDK's snake_case, and one exposure.
    const superProps = { $experiment_hero__banner: variant };
    const before = [
      await sdk('event', '$experiment_exposure', anon, session, superProps, { $experiment_name: 'Hero Banner', $variant: variant }),
      await sdk('event', 'page_view', anon, session, superProps, { path: '/' }),
    ];
    expect(await sdk('send', stack.url, key, before, anon, session)).toBe(204);
    // identify: $identify with $anonymous_id, then the refetch with both IDs keeps the variant.
    const user = 'browser-user-42';
    const identify = await sdk('event', '$identify', user, session, superProps, { email: 'lin@example.com', $anonymous_id: anon });
    expect(await sdk('send', stack.url, key, [identify], user, session)).toBe(204);
    const refetched = await sdk('experiments', stack.url, key, user, anon);
    expect(refetched.body.assigned_variants['Hero Banner']).toBe(variant);
    const purchase = await sdk('event', 'purchase', user, session, superProps, { amount: 30 });
    expect(await sdk('send', stack.url, key, [purchase], user, session)).toBe(204);
    const profile = await stack.admin('GET', `/admin/v1/projects/${project}/users/${user}`);
    expect(profile.body.ids).toEqual([anon, user]);

    // Local mode, another visitor: configs, bucketing on device, the super property alone.
    const configs = await sdk('configs', stack.url, key);
    expect(configs.status).toBe(200);
    const config = configs.body.experiments.find((e: { name: string }) => e.name === 'Pricing Page');
    expect(config).toEqual({ id: pricing.id, name: 'Pricing Page', variants: ['a', 'b', 'c'] });
    const visitor = 'anon-local-7';
    const local = (await sdk('bucket', config.id, visitor, config.variants)) as string;
    expect(local).toBe(variantFor(pricing.id, visitor, pricing.variants));
    const localEvents = [
      await sdk('event', 'page_view', visitor, 'session-2', { $experiment_pricing__page: local }, { path: '/pricing' }),
      await sdk('event', 'signup', visitor, 'session-2', { $experiment_pricing__page: local }, {}),
    ];
    expect(await sdk('send', stack.url, key, localEvents, visitor, 'session-2')).toBe(204);

    const results = async (id: string) =>
      (await stack.admin('POST', `${base}/${id}/results/refresh`)).body.variants.map((v: any) => [v.variant, v.enrolled, v.converted]);
    expect(await results(hero.id)).toEqual(hero.variants.map((v) => [v, v === variant ? 1 : 0, v === variant ? 1 : 0]));
    expect(await results(pricing.id)).toEqual(pricing.variants.map((v) => [v, v === local ? 1 : 0, v === local ? 1 : 0]));
  });
});
