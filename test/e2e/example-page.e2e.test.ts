/** The local server's SDK example page (/example/), which loads the script-tag build, under the dashboard's security headers. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'puppeteer-core';
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
  expect(await (await fetch(`${stack.url}/examples`)).json()).toMatchObject({ error: expect.stringMatching(/No route/) });
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
