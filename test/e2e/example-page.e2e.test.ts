/**
 * The local server's SDK example page (/example/), which loads the script-tag build, under the
 * dashboard's security headers, and what it tells about a refused key.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { dashboardCsp } from '../../lambdas/contract/dashboard';
import { describeBrowser, launchBrowser } from '../helpers/browser';
import { startTestProject, type TestStack } from '../helpers/local';
import { until } from '../helpers/until';

let stack: TestStack;
let project: string;
let key: string;
beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('example page'));
});
afterAll(() => stack.stop());

/** What the dashboard's files are served with (issue 19, 5: /example/ had none of it). */
const expectSecurityHeaders = (res: Response) => {
  expect(res.headers.get('content-security-policy'), res.url).toBe(dashboardCsp("'self'"));
  expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
  expect(res.headers.get('x-frame-options'), res.url).toBe('DENY');
  expect(res.headers.get('referrer-policy'), res.url).toBe('no-referrer');
};

it('serves the example page, its script and style, and the SDK build it loads', async () => {
  const redirect = await fetch(`${stack.url}/example`, { redirect: 'manual' });
  expect(redirect.status).toBe(308);
  expect(redirect.headers.get('location')).toBe('/example/');

  const page = await fetch(`${stack.url}/example/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await page.text();
  expect(html).toContain('<script src="tally.min.js"></script>');
  expect(html).toContain('<script src="example.js"></script>');
  expect(html).toContain('<link rel="stylesheet" href="example.css" />');
  // No inline script or style: the page is served with a strict Content-Security-Policy.
  expect(html).not.toMatch(/<script>|<style>|\sstyle=/);

  const example = await fetch(`${stack.url}/example/example.js`);
  expect(example.headers.get('content-type')).toMatch(/^text\/javascript/);
  expect(await example.text()).toContain('Tally.init(');
  const style = await fetch(`${stack.url}/example/example.css`);
  expect(style.headers.get('content-type')).toMatch(/^text\/css/);

  const script = await fetch(`${stack.url}/example/tally.min.js`);
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  expect(await script.text()).toContain('var Tally=');

  const missing = await fetch(`${stack.url}/example/nothing.js`);
  expect(missing.status).toBe(404);
  for (const res of [redirect, page, example, style, script, missing]) expectSecurityHeaders(res);
  // The API is untouched: an unknown path still gets the API's 404 body.
  expect(await (await fetch(`${stack.url}/examples`)).json()).toMatchObject({ error: expect.stringMatching(/No such route/) });
});

it('has no inline script, style or event-handler attribute, which its Content-Security-Policy would block', async () => {
  const html = await (await fetch(`${stack.url}/example/`)).text();
  expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/);
});

describeBrowser('the example page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 30_000);
  afterAll(() => browser?.close());

  it('works under its Content-Security-Policy: no violation, and a tracked event is stored', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (err) => problems.push(String(err)));
    page.on('response', (res) => {
      if (res.status() >= 400) problems.push(`${res.status()} ${res.url()}`);
    });
    await page.goto(`${stack.url}/example/`, { waitUntil: 'networkidle0' });
    // The stylesheet applied: the page's own rule, not the browser's default margin.
    expect(await page.$eval('pre', (el) => (globalThis as any).getComputedStyle(el).whiteSpace)).toBe('pre-wrap');
    await page.type('#key', key);
    await page.click('#start');
    await page.waitForFunction(() => (globalThis as any).document.getElementById('log').textContent.split('\n').includes('ready'));
    await page.$eval('#event', (el: any) => (el.value = 'csp example click'));
    await page.click('#track');
    await page.click('#flush');
    const [event] = await until(() => {
      const stored = stack.rawEvents(project).filter((e) => e.name === 'csp example click');
      return stored.length ? stored : undefined;
    });
    expect(event).toMatchObject({ platform: 'web', properties: { page: 'example' } });
    expect(problems).toEqual([]);
  });
});

describeBrowser('the example page with a refused key', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  const logLines = (page: Page) => page.$eval('#log', (l) => l.textContent!.split('\n').filter(Boolean).reverse());
  /** Waits for a log line starting with `start` and returns every line, oldest first. */
  async function waitForLine(page: Page, start: string): Promise<string[]> {
    await page.waitForFunction(
      (s) =>
        (globalThis as any).document
          .getElementById('log')
          .textContent.split('\n')
          .some((l: string) => l.startsWith(s)),
      {},
      start,
    );
    return logLines(page);
  }

  it('says the key was refused, answers the fallback instead of a stored variant, and that the events were kept for retry', async () => {
    const project = await stack.createProject('example page');
    const keyRes = await stack.admin('POST', `/admin/v1/projects/${project}/keys`, {});
    const { key, id: keyId } = keyRes.body as { key: string; id: string };
    const experiment = (
      await stack.admin('POST', `/admin/v1/projects/${project}/experiments`, {
        name: 'Checkout button',
        goal_event: 'purchase',
        variants: ['control', 'treatment'],
      })
    ).body as { id: string };
    expect((await stack.admin('POST', `/admin/v1/projects/${project}/experiments/${experiment.id}/start`)).status).toBe(200);

    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${stack.url}/example/`);
    await page.type('#key', key);
    await page.type('#experiment', 'Checkout button');
    await page.click('#start');
    await waitForLine(page, 'ready');
    await page.click('#variant');
    const assigned = (await waitForLine(page, 'Checkout button → ')).find((l) => l.startsWith('Checkout button → '))!;
    expect(assigned).toMatch(/^Checkout button → (control|treatment)$/);
    await page.click('#flush');
    await waitForLine(page, 'flushed: every queued event was delivered');

    // The key is revoked; the page starts again with it (the assignments stay stored in the browser).
    expect((await stack.admin('DELETE', `/admin/v1/projects/${project}/keys/${keyId}`)).status).toBe(204);
    await page.$eval('#log', (l) => (l.textContent = ''));
    await page.click('#start');
    let lines = await waitForLine(page, 'not ready: key refused (401)');
    expect(lines).not.toContain('ready');
    await page.click('#variant');
    lines = await waitForLine(page, 'Checkout button → ');
    expect(lines.at(-1)).toBe('Checkout button → (fallback) (key refused)');

    await page.$eval('#event', (i: any) => (i.value = 'purchase'));
    await page.click('#track');
    await page.click('#flush');
    lines = await waitForLine(page, 'not flushed: key refused; ');
    expect(lines.at(-1)).toBe('not flushed: key refused; 1 events kept in this browser for retry, sent by the next start with a working key');
    expect(lines).toContain('[tally] key refused (401): sending stopped, 1 events kept for retry');
    expect(lines.filter((l) => l.startsWith('flushed'))).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
