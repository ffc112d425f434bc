/**
 * People sign in to the dashboard through the deployment's OIDC issuer (authorization code + PKCE),
 * see only what their role may do, keep their session across a reload and a new tab, and their writes
 * land in the audit log. The issuer is the in-process test issuer (test/helpers/oidc-issuer.ts).
 */
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser, describeBrowser } from '../helpers/browser';
import { clickButton, problemsApartFrom, seriousA11yViolations, signInThroughIssuer, WAIT_MS } from '../helpers/dashboard';
import { callWith, startSignInStack, TEST_CLIENT_ID, type TestIssuer } from '../helpers/oidc-issuer';
import type { TestStack } from '../helpers/local';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent?.trim() ?? '');
const buttons = (page: Page) => page.$$eval('button', (bs) => bs.filter((b) => b.offsetParent !== null).map((b) => b.textContent?.trim() ?? ''));

/** The ID token the dashboard keeps for this tab (oidc-client-ts's user entry in sessionStorage). */
const pageToken = (page: Page, issuer: string) =>
  page.evaluate((key) => JSON.parse((globalThis as any).sessionStorage.getItem(key)).id_token as string, `oidc.user:${issuer}:${TEST_CLIENT_ID}`);

describeBrowser('single sign-on in the dashboard', () => {
  let stack: TestStack;
  let issuer: TestIssuer;
  let stop: () => Promise<void>;
  let browser: Browser;
  let projectId: string;
  let experimentId: string;
  beforeAll(async () => {
    ({ stack, issuer, stop } = await startSignInStack());
    browser = await launchBrowser();
    projectId = await stack.createProject('Signed-in shop');
    const created = await stack.admin('POST', `/admin/v1/projects/${projectId}/experiments`, { name: 'Hero banner', goal_event: 'purchase' });
    experimentId = created.body.id;
  });
  afterAll(async () => {
    await browser?.close();
    await stop?.();
  });

  it('serves the issuer in config.json and lets the page reach it under the CSP', async () => {
    const res = await fetch(`${stack.url}/config.json`);
    expect(await res.json()).toMatchObject({ signIn: { issuer: issuer.issuer, clientId: TEST_CLIENT_ID, groupsClaim: 'cognito:groups' } });
    expect(res.headers.get('content-security-policy')).toContain(`connect-src 'self' ${issuer.issuer}`);
  });

  it('signs a viewer in with the code flow and PKCE, shows no write controls, and the API refuses a write with 403 naming the role', async () => {
    const context = await browser.createBrowserContext();
    const before = { ...issuer.counts };
    const dash = await signInThroughIssuer(context, stack.url, 'vera@example.com', 'viewer', 'sign-in-sso');
    const { page } = dash;
    expect(await text(page, '.who')).toBe('vera@example.com · viewer');
    expect(issuer.counts.tokens).toBe(before.tokens + 1);
    expect(issuer.counts.refused).toEqual([]);
    // Back where it started, with no code or state left in the address.
    expect(new URL(page.url()).search).toBe('');
    // The refresh token the issuer returned is kept nowhere page scripts can read.
    const stored = await page.evaluate(() => JSON.stringify([{ ...(globalThis as any).sessionStorage }, { ...(globalThis as any).localStorage }]));
    expect(stored).toContain('id_token');
    expect(stored).not.toContain('refresh');

    await dash.go('/projects');
    await page.waitForSelector('h1 ::-p-text(Projects)');
    expect(await buttons(page)).not.toContain('Create project');

    await dash.go(`/projects/${projectId}/experiments`);
    await page.waitForSelector('td ::-p-text(Hero banner)');
    expect(await buttons(page)).not.toContain('Create experiment');

    await dash.go(`/projects/${projectId}/experiments/${experimentId}`);
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#experiment-name')?.value === 'Hero banner');
    expect(await buttons(page)).not.toEqual(expect.arrayContaining(['Save']));
    expect(await buttons(page)).not.toContain('Start');
    expect(await page.$eval('#experiment-name', (el) => (el as any).closest('fieldset').disabled)).toBe(true);
    expect(await text(page, '.read-only')).toContain('You are signed in as viewer: to edit and start experiments you need the experimenter role');
    await dash.screenshot('sign-in-viewer-experiment');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await dash.go(`/projects/${projectId}/keys`);
    await page.waitForSelector('h1 ::-p-text(Keys)');
    expect(await buttons(page)).not.toContain('Create key');
    expect(await text(page, '.read-only')).toContain('to create and revoke keys you need the admin role');

    // The token the dashboard holds is the viewer's: the API refuses a write and says which role it needs.
    const refused = await callWith(stack, await pageToken(page, issuer.issuer), 'POST', `/admin/v1/projects/${projectId}/experiments/${experimentId}/start`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('This request needs the experimenter role');
    expect(refused.body.error).toContain('you are signed in as viewer');
    // A page whose API answer is a 403 says the API's message (the audit log is for admins).
    expect(await page.$('a ::-p-text(Audit log)')).toBeNull();
    await dash.go('/audit');
    await page.waitForSelector('::-p-text(This request needs the admin role)');
    expect(await page.$eval('main', (m) => m.textContent)).toContain('you are signed in as viewer');
    expect(problemsApartFrom(dash.problems, 403)).toEqual([]);

    // An expired session re-runs the code flow on the next start: redirects through the issuer's session, no login page.
    const before2 = { ...issuer.counts };
    await page.evaluate((key) => {
      const storage = (globalThis as any).sessionStorage;
      storage.setItem(key, JSON.stringify({ ...JSON.parse(storage.getItem(key)), expires_at: Math.floor(Date.now() / 1000) - 60 }));
    }, `oidc.user:${issuer.issuer}:${TEST_CLIENT_ID}`);
    await page.reload({ waitUntil: 'networkidle0' });
    await page.waitForSelector('.who');
    expect(await text(page, '.who')).toBe('vera@example.com · viewer');
    expect(issuer.counts).toMatchObject({ authorize: before2.authorize + 1, loginPages: before2.loginPages, tokens: before2.tokens + 1 });
    await context.close();
  });

  it('lets an experimenter create and start an experiment, which the audit log lists; a reload and a new tab stay signed in without a password', async () => {
    const context = await browser.createBrowserContext();
    const dash = await signInThroughIssuer(context, stack.url, 'erin@example.com', 'experimenter');
    const { page } = dash;
    expect(await text(page, '.who')).toBe('erin@example.com · experimenter');
    await dash.go(`/projects/${projectId}/experiments`);
    await clickButton(page, 'Create experiment');
    await page.waitForSelector('#experiment-name');
    await page.type('#experiment-name', 'Checkout copy');
    await page.type('#experiment-goal', 'purchase');
    await clickButton(page, 'Save');
    await page.waitForFunction(() => /\/experiments\/[^/]+$/.test((globalThis as any).location.hash) && !(globalThis as any).location.hash.endsWith('/new'));
    await clickButton(page, 'Start');
    await clickButton(page, 'Yes, start it');
    await page.waitForSelector('::-p-text(Started: users are now assigned to the variants.)');

    // An admin (another person, another browser) sees those writes in the audit log under the experimenter's name.
    const adminContext = await browser.createBrowserContext();
    const admin = await signInThroughIssuer(adminContext, stack.url, 'ada@example.com', 'admin');
    await admin.page.click('a ::-p-text(Audit log)');
    await admin.page.waitForSelector('td[data-label="Change"]');
    const rows = await admin.page.$$eval('table.audit tbody tr', (trs) =>
      trs.map((tr) => Object.fromEntries([...tr.querySelectorAll('td[data-label]')].map((td) => [td.getAttribute('data-label'), td.textContent]))),
    );
    expect(rows.slice(0, 2)).toEqual([
      expect.objectContaining({ Who: expect.stringContaining('erin@example.com'), Role: 'experimenter', Change: 'admin-experiments-start', Status: '200' }),
      expect.objectContaining({ Who: expect.stringContaining('erin@example.com'), Role: 'experimenter', Change: 'admin-experiments-create', Status: '201' }),
    ]);
    expect(admin.problems).toEqual([]);
    await adminContext.close();

    // A reload keeps this tab's session: no trip to the issuer.
    const before = { ...issuer.counts };
    await page.reload({ waitUntil: 'networkidle0' });
    await page.waitForSelector('h1 ::-p-text(Checkout copy)');
    expect(await text(page, '.who')).toBe('erin@example.com · experimenter');
    expect(issuer.counts.authorize).toBe(before.authorize);

    // A new tab signs in through the issuer's session: redirects only, no login page.
    // Opened at a page's link, it comes back to that page.
    const tab = await context.newPage();
    tab.setDefaultTimeout(WAIT_MS);
    const tabProblems: string[] = [];
    tab.on('console', (m) => void (m.type() === 'error' && tabProblems.push(m.text())));
    tab.on('pageerror', (err) => void tabProblems.push(String(err)));
    await tab.goto(`${stack.url}/#/projects/${projectId}/experiments`);
    await tab.waitForSelector('td ::-p-text(Checkout copy)');
    expect(await text(tab, '.who')).toBe('erin@example.com · experimenter');
    expect(issuer.counts.authorize).toBe(before.authorize + 1);
    expect(issuer.counts.loginPages).toBe(before.loginPages);
    expect(issuer.counts.tokens).toBe(before.tokens + 1);
    expect(problemsApartFrom(dash.problems)).toEqual([]);
    expect(tabProblems).toEqual([]);

    // Signing out forgets the session: the next start shows the sign-in page again.
    await clickButton(tab, 'Sign out');
    await tab.waitForSelector('button ::-p-text(Sign in with single sign-on)');
    await tab.reload({ waitUntil: 'networkidle0' });
    await tab.waitForSelector('button ::-p-text(Sign in with single sign-on)');
    await context.close();
  });
});
