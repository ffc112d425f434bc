/**
 * Every page of the shell and the project pages at 1280 and 375 px: axe-core finds no serious or
 * critical violation, nothing overflows the viewport sideways, and a screenshot of each is written to
 * test-output/dashboard/ (look at them). And the keyboard alone signs in and creates a project.
 */
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser } from '../helpers/browser';
import { openDashboard, problemsApartFrom, seriousA11yViolations, type DashboardPage } from '../helpers/dashboard';
import { ADMIN_TOKEN, startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

describeBrowser('dashboard accessibility and layout', () => {
  let stack: TestStack;
  let browser: Browser;
  let projectId: string;
  beforeAll(async () => {
    stack = await startTestStack();
    browser = await launchBrowser();
    projectId = await stack.createProject('Acme web');
    const key = await stack.createKey(projectId, { ...UNTHROTTLED_KEY, allowed_origins: ['https://acme.example.com'] });
    const res = await stack.post(
      '/v1/events',
      key,
      {
        events: [
          { name: 'page_viewed', user_id: 'anon-1', timestamp: '2026-04-01T08:00:00Z', properties: { path: '/pricing', referrer: 'https://search.example' } },
          {
            name: '$identify',
            user_id: 'user-1',
            timestamp: '2026-04-01T08:01:00Z',
            properties: { $anonymous_id: 'anon-1', email: 'grace@example.com', name: 'Grace Hopper' },
          },
          { name: 'checkout_completed', user_id: 'user-1', timestamp: '2026-04-01T08:02:00Z', properties: { total: 42.5, items: 3 } },
        ],
      },
      { headers: { Origin: 'https://acme.example.com' } },
    );
    expect(res.status, res.text).toBe(204);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  /** Checks the page as shown: axe, no sideways scrolling, and a screenshot. */
  async function check(dash: DashboardPage, name: string) {
    expect(await seriousA11yViolations(dash.page), name).toEqual([]);
    const overflow = await dash.page.evaluate(() => {
      const doc = (globalThis as any).document.documentElement;
      return doc.scrollWidth - doc.clientWidth;
    });
    expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
    await dash.screenshot(name);
  }

  for (const width of [1280, 375]) {
    it(`has no serious accessibility violation on any page at ${width} px`, async () => {
      const signIn = await openDashboard(browser, stack.url, { width, signIn: false });
      await check(signIn, 'sign-in');
      await signIn.page.type('#token', 'not-the-token');
      await signIn.page.click('button ::-p-text(Sign in)');
      await signIn.page.waitForSelector('#token-error');
      await check(signIn, 'sign-in-wrong-token');
      await signIn.page.close();

      const dash = await openDashboard(browser, stack.url, { width });
      const { page } = dash;
      await page.waitForSelector('.cards');
      await check(dash, 'projects');
      await page.click('button ::-p-text(Create project)');
      await page.waitForSelector('#project-name-error');
      await check(dash, 'projects-name-error');

      await dash.go(`/projects/${projectId}/keys`);
      await page.waitForSelector('tbody tr');
      await page.type('#key-origins', 'http//nope');
      await page.click('button ::-p-text(Create key)');
      await page.waitForSelector('#key-origins-error');
      await check(dash, 'keys-field-error');
      await page.$eval('#key-origins', (e) => ((e as any).value = ''));
      await page.click('button ::-p-text(Create key)');
      await page.waitForSelector('.new-key');
      await check(dash, 'keys');
      await page.click('button[aria-label^="Revoke"]');
      await page.waitForSelector('dialog[open] button.danger');
      await check(dash, 'keys-revoke');
      await page.click('dialog[open] button ::-p-text(Cancel)');

      await dash.go(`/projects/${projectId}/install`);
      await page.waitForSelector('pre.code');
      const exampleKey = `tally_${'e'.repeat(43)}`;
      await page.type('#install-key', exampleKey);
      expect(await page.$eval('pre.code', (e) => e.textContent)).toContain(`apiKey: "${exampleKey}", baseURL: "${stack.url}"`);
      await check(dash, 'install');

      await dash.go(`/projects/${projectId}/events`);
      await page.waitForSelector('ol.events summary');
      await page.click('ol.events li:nth-child(1) summary');
      await check(dash, 'events');

      await dash.go(`/projects/${projectId}/users`);
      await page.waitForSelector('table.users-table tbody tr');
      await check(dash, 'users-list');

      await dash.go(`/projects/${projectId}/users/anon-1`);
      await page.waitForSelector('ol.events');
      await check(dash, 'users');
      expect(problemsApartFrom(dash.problems, 400)).toEqual([]);
      await page.close();
    });
  }

  it('signs in and creates a project with the keyboard alone', async () => {
    const dash = await openDashboard(browser, stack.url, { signIn: false });
    const { page, problems } = dash;
    const focused = () =>
      page.evaluate(() => {
        const el = (globalThis as any).document.activeElement;
        return { tag: el?.tagName as string, name: (el?.getAttribute('name') ?? el?.textContent) as string, id: el?.id as string };
      });
    // The token field has focus on arrival; Enter submits.
    expect((await focused()).id).toBe('token');
    await page.keyboard.type(ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForSelector('h1 ::-p-text(Projects)');
    // The first Tab stop is the skip link; following it puts focus on the page's content.
    await page.keyboard.press('Tab');
    expect((await focused()).name).toBe('Skip to content');
    const outline = await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.activeElement).outlineStyle);
    expect(outline).not.toBe('none');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('main');
    for (let i = 0; i < 10 && (await focused()).name !== 'name'; i++) await page.keyboard.press('Tab');
    expect(await focused()).toMatchObject({ tag: 'INPUT', name: 'name' });
    await page.keyboard.type('Keyboard project');
    await page.keyboard.press('Tab');
    expect((await focused()).name).toBe('Create project');
    await page.keyboard.press('Enter');
    await page.waitForSelector('h1 ::-p-text(Keys)');
    const projects = (await stack.admin('GET', '/admin/v1/projects')).body.projects as { name: string }[];
    expect(projects.map((p) => p.name)).toContain('Keyboard project');
    expect(problems).toEqual([]);
    await page.close();
  });
});
