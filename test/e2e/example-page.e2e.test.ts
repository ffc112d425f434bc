/** The local server's SDK example page (/example/), which loads the script-tag build, and what it tells about a refused key. */
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser } from '../helpers/browser';
import { startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

it('serves the example page, its script and styles, and the SDK build it loads', async () => {
  const redirect = await fetch(`${stack.url}/example`, { redirect: 'manual' });
  expect(redirect.status).toBe(308);
  expect(redirect.headers.get('location')).toBe('/example/');

  const page = await fetch(`${stack.url}/example/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await page.text();
  expect(html).toContain('<script src="tally.min.js"></script>');
  expect(html).toContain('<script src="example.js"></script>');
  // No inline script or style: the page can be served with a strict Content-Security-Policy.
  expect(html).not.toMatch(/<script>|<style>|\sstyle=/);

  const script = await fetch(`${stack.url}/example/example.js`);
  expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  expect(await script.text()).toContain('Tally.init(');
  expect((await fetch(`${stack.url}/example/example.css`)).headers.get('content-type')).toMatch(/^text\/css/);

  const sdk = await fetch(`${stack.url}/example/tally.min.js`);
  expect(sdk.status).toBe(200);
  expect(sdk.headers.get('content-type')).toMatch(/^text\/javascript/);
  expect(await sdk.text()).toContain('var Tally=');

  expect((await fetch(`${stack.url}/example/nothing.js`)).status).toBe(404);
  // The API is untouched: an unknown path still gets the API's 404 body.
  expect(await (await fetch(`${stack.url}/examples`)).json()).toMatchObject({ error: expect.stringMatching(/No route/) });
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
