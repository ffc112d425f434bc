/**
 * A person's token expires while a page is open (the test issuer issues 12-second tokens): the page
 * stays, under "Your session has ended"; "Sign in again" signs in in a small window through the
 * issuer's session (no password), and the person carries on where they were, with what they had typed,
 * and the API accepts their next write.
 */
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser } from '../helpers/browser';
import { clickButton, signInThroughIssuer } from '../helpers/dashboard';
import type { TestStack } from '../helpers/local';
import { startSignInStack, type TestIssuer } from '../helpers/oidc-issuer';

const TOKEN_SECONDS = 12;

describeBrowser('the session ends while a page is open', () => {
  let stack: TestStack;
  let issuer: TestIssuer;
  let stop: () => Promise<void>;
  let browser: Browser;
  let projectId: string;
  beforeAll(async () => {
    ({ stack, issuer, stop } = await startSignInStack({ tokenSeconds: TOKEN_SECONDS }));
    browser = await launchBrowser();
    projectId = await stack.createProject('Expiring shop');
  });
  afterAll(async () => {
    await browser?.close();
    await stop?.();
  });

  it('says so over the page, signs in again in a small window, and keeps the page and what was typed', { timeout: 90_000 }, async () => {
    const context = await browser.createBrowserContext();
    const dash = await signInThroughIssuer(context, stack.url, 'erin@example.com', 'experimenter');
    const { page } = dash;
    const signedInAt = Date.now();
    await dash.go(`/projects/${projectId}/experiments/new`);
    await page.waitForSelector('#experiment-name');
    await page.type('#experiment-name', 'Typed before expiry');

    // At the token's expiry the dialog opens by itself, over the page.
    await page.waitForSelector('dialog[open] ::-p-text(Your session has ended)', { timeout: (TOKEN_SECONDS + 10) * 1000 });
    expect(Date.now() - signedInAt).toBeGreaterThan((TOKEN_SECONDS - 3) * 1000);
    await dash.screenshot('session-ended');
    expect(await page.$eval('#experiment-name', (el) => (el as unknown as { value: string }).value)).toBe('Typed before expiry');

    // "Sign in again": a window through the issuer's session (no login page), which closes itself.
    const before = { ...issuer.counts };
    const popup = new Promise((resolve) => context.once('targetcreated', resolve));
    await clickButton(page, 'Sign in again');
    await popup;
    await page.waitForSelector('dialog[open]', { hidden: true });
    // The window closed itself: only the dashboard's page is left.
    for (let i = 0; i < 100 && (await context.pages()).length > 1; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await context.pages()).length).toBe(1);
    expect(issuer.counts).toMatchObject({ authorize: before.authorize + 1, loginPages: before.loginPages, tokens: before.tokens + 1, refused: [] });
    expect(await page.$eval('#experiment-name', (el) => (el as unknown as { value: string }).value)).toBe('Typed before expiry');
    expect(await page.$eval('.who', (el) => el.textContent?.trim())).toBe('erin@example.com · experimenter');

    // The new token works: the experiment is created.
    await page.type('#experiment-goal', 'purchase');
    await clickButton(page, 'Save');
    await page.waitForFunction(() => /\/experiments\/[^/]+$/.test((globalThis as any).location.hash) && !(globalThis as any).location.hash.endsWith('/new'));
    const listed = await stack.admin('GET', `/admin/v1/projects/${projectId}/experiments`);
    expect(listed.body.experiments.map((e: { name: string }) => e.name)).toEqual(['Typed before expiry']);
    expect(dash.problems).toEqual([]);
    await context.close();
  });
});
