/**
 * The script-tag build in real headless Chromium against the local server. The page comes from
 * another origin than the API, so CORS is real; every test gets its own browser context (storage).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, servePages } from '../../test/helpers/browser';
import { startTestStack, type TestStack } from '../../test/helpers/local';
import { until } from '../../test/helpers/until';

const PAGE = '<!doctype html><html><head><script src="/tally.min.js"></script></head><body>Tally SDK test page</body></html>';

describeBrowser('SDK in a browser', () => {
  let stack: TestStack;
  let project: string;
  let key: string;
  let pages: { origin: string; close(): Promise<void> };
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    stack = await startTestStack();
    project = await stack.createProject('sdk browser');
    key = await stack.createKey(project, { plan: 'enterprise', rate_limit_per_minute: 100_000 });
    pages = await servePages({
      '/index.html': PAGE,
      '/other.html': '<!doctype html><title>elsewhere</title>',
      '/tally.min.js': readFileSync(join(__dirname, '../dist/tally.min.js')),
    });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await stack?.stop();
  });
  afterEach(async () => {
    await context?.close();
  });

  /** Opens the test page in a fresh context (unless reusing one) and runs Tally.init as an app would. */
  async function open(options: Record<string, unknown> = {}, page?: Page): Promise<Page> {
    if (!page) {
      context = await browser.createBrowserContext();
      page = await context.newPage();
      await page.goto(`${pages.origin}/index.html`);
    }
    await init(page, options);
    return page;
  }

  async function init(page: Page, options: Record<string, unknown> = {}) {
    await page.evaluate(
      (o) => {
        const g = globalThis as any;
        g.tally = g.Tally.init(o);
      },
      { apiKey: key, baseURL: stack.url, flushIntervalMs: 60_000, ...options },
    );
  }

  /** Spends a key's burst until the server answers 429, so the SDK's next post is refused too. */
  async function exhaust(apiKey: string) {
    for (let i = 0; i < 500; i++) {
      const res = await fetch(`${stack.url}/v1/experiments/configs`, { headers: { Authorization: `Bearer ${apiKey}` } });
      if (res.status === 429) return;
    }
    throw new Error('the key was never rate limited');
  }

  const stored = (name: string) => stack.rawEvents(project).filter((e) => e.name === name);

  it('stores events with every field, and gzips a body over 1 KB', async () => {
    const page = await open({ appVersion: '1.4.0', environment: 'test' });
    const encodings: Array<string | undefined> = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/events') && r.method() === 'POST') encodings.push(r.headers()['content-encoding']);
    });
    const anonymousId = await page.evaluate(async () => {
      const t = (globalThis as any).tally;
      t.track('browser small', { button: 'buy' });
      await t.flush();
      t.track('browser large', { text: 'lorem ipsum '.repeat(200) });
      await t.flush();
      return t.anonymousId as string;
    });
    expect(encodings).toEqual([undefined, 'gzip']);
    const [small] = stored('browser small');
    const ua = await browser.userAgent();
    expect(small).toMatchObject({
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: anonymousId,
      properties: { button: 'buy' },
      platform: 'web',
      app_version: '1.4.0',
      os_version: ua.includes('Linux') ? 'Linux' : expect.any(String),
      environment: 'test',
      locale: expect.stringMatching(/^[a-z]{2}/),
      timezone: expect.any(String),
      sdk: 'tally-js',
      sdk_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    expect(stored('browser large')[0]!.properties.text).toHaveLength(2400);
  });

  it('a reload with unsent events loses none', async () => {
    context = await browser.createBrowserContext();
    const page = await context.newPage();
    let blocked = true;
    await page.setRequestInterception(true);
    page.on('request', (r) => {
      if (blocked && r.url().endsWith('/v1/events')) void r.abort('internetdisconnected');
      else void r.continue();
    });
    await page.goto(`${pages.origin}/index.html`);
    await open({}, page);
    await page.evaluate(() => {
      const t = (globalThis as any).tally;
      for (const n of ['reload 1', 'reload 2', 'reload 3']) t.track(n);
    });
    await page.reload();
    const kept = await page.evaluate(() => JSON.parse((globalThis as any).localStorage.getItem('tally:queue')).length as number);
    expect(kept).toBe(3); // persisted across the reload, nothing delivered yet
    blocked = false;
    await init(page); // the new page's client sends what the old one left
    await until(() => (stored('reload 3').length ? true : undefined));
    await page.evaluate(() => (globalThis as any).tally.flush());
    for (const n of ['reload 1', 'reload 2', 'reload 3']) expect(stored(n)).toHaveLength(1);
  });

  it('offline, then back online: delivery resumes at once on the online event', async () => {
    context = await browser.createBrowserContext();
    const page = await context.newPage();
    // Backoff jitter at its lower edge: retries at 0.5, 1.5, 3.5, 7.5 s, so the online event is what delivers.
    await page.evaluateOnNewDocument(() => {
      Math.random = () => 0;
    });
    await page.goto(`${pages.origin}/index.html`);
    await open({}, page);
    await page.setOfflineMode(true);
    await page.evaluate(async () => {
      const t = (globalThis as any).tally;
      t.track('went offline');
      await t.flush();
    });
    await new Promise((r) => setTimeout(r, 4000));
    expect(stored('went offline')).toHaveLength(0);
    const back = Date.now();
    await page.setOfflineMode(false);
    await until(() => (stored('went offline').length ? true : undefined), 3000);
    expect(Date.now() - back).toBeLessThan(3000); // before the 7.5 s retry
    expect(stored('went offline')).toHaveLength(1);
  });

  it('a pagehide right after track still delivers', async () => {
    const page = await open({ maxBatchSize: 100 });
    await page.evaluate(() => (globalThis as any).tally.track('left the page', { at: 'checkout' }));
    await page.goto(`${pages.origin}/other.html`);
    const [event] = await until(() => (stored('left the page').length ? stored('left the page') : undefined));
    expect(event!.properties).toEqual({ at: 'checkout' });
  });

  it('identify, then events are stored under the canonical ID', async () => {
    const page = await open();
    const anonymousId = await page.evaluate(async () => {
      const t = (globalThis as any).tally;
      await t.ready(); // the anonymous ID reaches the server first, as on any page view before a login
      t.track('browser before login');
      t.identify('browser-user-1', { email: 'grace@example.com' });
      t.track('browser after login');
      await t.flush();
      return t.anonymousId as string;
    });
    expect(stored('browser after login')[0]).toMatchObject({ user_id: anonymousId, sent_user_id: 'browser-user-1' });
    expect(stored('$identify').find((e) => e.sent_user_id === 'browser-user-1')!.properties).toEqual({
      $anonymous_id: anonymousId,
      email: 'grace@example.com',
    });
  });

  it('honours 429 Retry-After', async () => {
    const limited = await stack.createKey(project, { rate_limit_per_minute: 60 });
    const page = await open({ apiKey: limited, experimentMode: 'local', localExperiments: [] });
    await exhaust(limited);
    const answers: Array<{ status: number; at: number }> = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/v1/events') && r.request().method() === 'POST') answers.push({ status: r.status(), at: Date.now() });
    });
    await page.evaluate(async () => {
      const t = (globalThis as any).tally;
      t.track('browser rate limited');
      await t.flush();
    });
    await until(() => (stored('browser rate limited').length && answers.length >= 2 ? true : undefined), 20_000, 'the retried batch');
    expect(answers.map((a) => a.status)).toEqual([429, 204]);
    expect(answers[1]!.at - answers[0]!.at).toBeGreaterThanOrEqual(900); // Retry-After: 1 (CDP timestamps are not exact)
  });

  it('the server stopped and restarted mid-flight: no event lost, none duplicated', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tally-sdk-browser-restart-'));
    let own = await startTestStack({ dataDir, inMemoryDynamo: false });
    try {
      const port = Number(new URL(own.url).port);
      const projectId = await own.createProject('browser restart');
      const k = await own.createKey(projectId);
      const page = await open({ apiKey: k, baseURL: own.url, experimentMode: 'local', localExperiments: [], maxBatchSize: 5 });
      await page.evaluate(async () => {
        const t = (globalThis as any).tally;
        for (let i = 0; i < 5; i++) t.track(`b${i}`);
        await t.flush();
        for (let i = 5; i < 12; i++) t.track(`b${i}`); // a full batch starts a send…
      });
      await own.stop(); // …while the server shuts down
      await page.evaluate(async () => {
        const t = (globalThis as any).tally;
        for (let i = 12; i < 20; i++) t.track(`b${i}`);
        await t.flush(); // refused: nothing listens
      });
      own = await startTestStack({ dataDir, inMemoryDynamo: false, port });
      await page.evaluate(() => (globalThis as any).tally.flush());
      await until(() => (own.rawEvents(projectId).length >= 20 ? true : undefined));
      await page.evaluate(() => (globalThis as any).tally.flush());
      const events = own.rawEvents(projectId);
      expect(events.map((e) => e.name).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `b${i}`).sort());
      expect(new Set(events.map((e) => e.event_id)).size).toBe(20);
    } finally {
      await own.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("the local server's example page sends events with the script-tag build", async () => {
    context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.goto(`${stack.url}/example/`);
    await page.type('#key', key);
    await page.click('#start');
    await page.$eval('#event', (el) => ((el as unknown as { value: string }).value = 'example page click'));
    await page.click('#track');
    await page.click('#flush');
    const [event] = await until(() => (stored('example page click').length ? stored('example page click') : undefined));
    expect(event).toMatchObject({ platform: 'web', sdk: 'tally-js', properties: { page: 'example' } });
  });

  it('server and local experiments give the server variant; exposure is deduplicated across a reload', async () => {
    const base = `/admin/v1/projects/${project}/experiments`;
    const created = await stack.admin('POST', base, { name: 'Browser Banner', goal_event: 'purchase', variants: ['a', 'b', 'c', 'd', 'e'] });
    await stack.admin('POST', `${base}/${created.body.id}/start`);
    const serverVariant = async (anonymousId: string) => {
      const res = await fetch(`${stack.url}/v1/experiments?anonymous_id=${anonymousId}`, { headers: { Authorization: `Bearer ${key}` } });
      return ((await res.json()) as any).assigned_variants['Browser Banner'] as string;
    };
    const variantIn = (page: Page) =>
      page.evaluate(async () => {
        const t = (globalThis as any).tally;
        await t.ready();
        return { anonymousId: t.anonymousId as string, variant: t.getVariant('Browser Banner', 'fallback') as string };
      });

    for (const mode of ['local', 'server']) {
      const page = await open({ experimentMode: mode });
      const seen = await variantIn(page);
      expect(seen.variant).toBe(await serverVariant(seen.anonymousId));
      if (mode === 'local') continue;

      await page.evaluate(() => (globalThis as any).tally.flush());
      await page.reload();
      await init(page, { experimentMode: mode });
      expect(await variantIn(page)).toEqual(seen);
      await page.evaluate(async () => {
        const t = (globalThis as any).tally;
        t.track('banner clicked');
        await t.flush();
      });
      const mine = stack.rawEvents(project).filter((e) => e.user_id === seen.anonymousId);
      expect(mine.filter((e) => e.name === '$experiment_exposure').map((e) => e.properties.$variant)).toEqual([seen.variant]);
      expect(mine.find((e) => e.name === 'banner clicked')!.properties).toEqual({ $experiment_browser_banner: seen.variant });
    }
  });
});
