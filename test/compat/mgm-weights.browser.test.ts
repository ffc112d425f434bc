/**
 * Variant weights need no client change (issue 23), shown in real headless Chromium for the MGM
 * JavaScript SDK, the page served from another origin (every request a real CORS one).
 *
 * As in mgm-weights.node.test.ts: npm's 0.5.1 has no experiments API, so the page makes exactly
 * the requests of the SDK's repository at 0.10.0 (server mode: GET /v1/experiments?user_id=<id>;
 * local mode: GET /v1/experiments/configs, with Authorization and Content-Type: application/json)
 * and buckets on the device as its resolveLocalVariant does, with the browser's own SHA-256
 * (crypto.subtle): `variants[first 8 bytes of SHA-256("<uuid>:<id>") big-endian % variants.length]`
 * on the list as received. Over IDs of a fixed seed, local mode assigns both weighted experiments
 * within sampling error of the weights, and server mode gives every one of the first 2,000 IDs (see
 * SERVER_IDS) the variant the device does.
 */
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, servePages } from '../helpers/browser';
import { startTestProject, type TestStack } from '../helpers/local';
import { seededIds, standardErrorsOff, tally, WEIGHTED_EXPERIMENTS } from '../helpers/weighted-ids';

const LOCAL_IDS = 20_000;
/**
 * Fewer than Node's 10,000: in a browser every assignments request has its own CORS preflight (the
 * preflight cache is per URL, and each carries its user_id), so 10,000 took 113 s on a busy 2-core
 * machine. mgm-weights.node.test.ts asks the server for the first 10,000.
 */
const SERVER_IDS = 2_000;

const PAGE_SCRIPT = String.raw`
const headers = (apiKey) => ({ Authorization: 'Bearer ' + apiKey, 'Content-Type': 'application/json' });

/** Local mode: the configs once, then 0.10.0's on-device bucketing of every ID. */
window.bucketLocally = async (baseURL, apiKey, names, ids) => {
  const res = await fetch(baseURL + '/v1/experiments/configs', { method: 'GET', headers: headers(apiKey) });
  const { experiments } = await res.json();
  const out = {};
  for (const name of names) {
    const config = experiments.find((e) => e.name === name);
    out[name] = [];
    for (const id of ids) {
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(config.id + ':' + id)));
      let bucket = 0n;
      for (let i = 0; i < 8; i++) bucket = (bucket << 8n) | BigInt(digest[i]);
      out[name].push(config.variants[Number(bucket % BigInt(config.variants.length))]);
    }
  }
  return { status: res.status, assigned: out };
};

/** Server mode: one assignments request per ID, as many at once as 'concurrency'. */
window.askServer = async (baseURL, apiKey, names, ids, concurrency) => {
  const out = Object.fromEntries(names.map((n) => [n, new Array(ids.length)]));
  let next = 0;
  let failed = 0;
  async function worker() {
    while (next < ids.length) {
      const i = next++;
      const res = await fetch(baseURL + '/v1/experiments?user_id=' + encodeURIComponent(ids[i]), { method: 'GET', headers: headers(apiKey) });
      if (res.status !== 200) failed++;
      const { assigned_variants } = await res.json();
      for (const n of names) out[n][i] = assigned_variants[n];
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { failed, assigned: out };
};
window.pageReady = true;
`;

describeBrowser('MGM JavaScript SDK (0.10.0 requests) against weighted experiments, in headless Chromium', () => {
  let stack: TestStack;
  let project: string;
  let key: string;
  let browser: Browser;
  let pages: { origin: string; close(): Promise<void> };
  let page: Page;
  const ids = seededIds(LOCAL_IDS);
  const names = WEIGHTED_EXPERIMENTS.map((e) => e.name);
  let device: Record<string, string[]>;

  beforeAll(async () => {
    const html =
      '<!doctype html><html><head><meta charset="utf-8"><title>weights</title><script type="module" src="/page.js"></script></head><body>weights</body></html>';
    [{ stack, project, key }, browser, pages] = await Promise.all([
      startTestProject('mgm weights in chromium'),
      launchBrowser(),
      servePages({ '/index.html': html, '/page.js': PAGE_SCRIPT }),
    ]);
    for (const experiment of WEIGHTED_EXPERIMENTS) {
      const created = await stack.admin('POST', `/admin/v1/projects/${project}/experiments`, { ...experiment, goal_event: 'purchase' });
      expect((await stack.admin('POST', `/admin/v1/projects/${project}/experiments/${created.body.id}/start`)).status).toBe(200);
    }
    page = await browser.newPage();
    await page.goto(`${pages.origin}/index.html`);
    await page.waitForFunction('window.pageReady === true', { timeout: 10_000 });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await stack?.stop();
  });

  const call = <T>(fn: string, ...args: unknown[]): Promise<T> => page.evaluate(`${fn}(...${JSON.stringify(args)})`) as Promise<T>;

  it(`local mode assigns ${LOCAL_IDS} IDs within sampling error of the weights`, async () => {
    const local = await call<{ status: number; assigned: Record<string, string[]> }>('window.bucketLocally', stack.url, key, names, ids);
    expect(local.status).toBe(200);
    device = local.assigned;
    for (const experiment of WEIGHTED_EXPERIMENTS) {
      const counts = tally(device[experiment.name]!, experiment.variants);
      console.log(`${experiment.name} ${experiment.weights.join('/')} in Chromium over ${LOCAL_IDS} IDs: ${counts.join('/')}`);
      for (const off of standardErrorsOff(counts, experiment.weights)) expect(off).toBeLessThan(4);
    }
  }, 120_000);

  it(`server mode gives each of the first ${SERVER_IDS} IDs the variant the device computes`, async () => {
    const server = await call<{ failed: number; assigned: Record<string, string[]> }>('window.askServer', stack.url, key, names, ids.slice(0, SERVER_IDS), 16);
    expect(server.failed).toBe(0);
    for (const experiment of WEIGHTED_EXPERIMENTS) {
      const fromServer = server.assigned[experiment.name]!;
      const onDevice = device[experiment.name]!.slice(0, SERVER_IDS);
      expect(fromServer.filter((v, i) => v !== onDevice[i]).length).toBe(0);
      for (const off of standardErrorsOff(tally(fromServer, experiment.variants), experiment.weights)) expect(off).toBeLessThan(4);
    }
  }, 600_000);
});
