/**
 * The dashboard's project pages end to end in Chromium against the local server: sign-in (a wrong
 * token shows the API's message), projects, keys (the API's message next to a bad field, the new
 * key shown once, revoke with a confirmation), events sent with a key (filter, expand), a user after
 * $identify, a 401 mid-session, and an event name that is HTML shown as text.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import type { SdkManifest } from '../../lambdas/contract/dashboard';
import { describeBrowser, servePages } from '../helpers/browser';
import { openDashboard, problemsApartFrom, useDashboardServer } from '../helpers/dashboard';
import { toStoredEvent } from '../../lambdas/domain/event';
import { ADMIN_TOKEN, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { until } from '../helpers/until';

const text = (page: Page) => page.evaluate(() => (globalThis as any).document.body.innerText as string);

async function sendEvents(stack: TestStack, key: string, events: unknown[]) {
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBeLessThan(300);
}

/** The listing reads the raw event files: wait until the API lists `count` events for the project. */
async function waitListed(stack: TestStack, projectId: string, count: number) {
  for (let i = 0; i < 100; i++) {
    const res = await stack.admin('GET', `/admin/v1/projects/${projectId}/events`);
    if (res.body.events.length >= count) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${count} events listed`);
}

describeBrowser('dashboard pages', () => {
  const server = useDashboardServer();

  it('refuses a wrong token saying where the right one is, then signs in with the right one', async () => {
    const dash = await openDashboard(server.browser, server.stack.url, { signIn: false });
    const { page } = dash;
    expect(await page.title()).toBe('Sign in · Tally');
    await page.type('#token', 'not-the-token');
    await page.click('button ::-p-text(Sign in)');
    await page.waitForSelector('#token-error');
    expect(await page.$eval('#token-error', (e) => e.textContent)).toBe(
      "That is not this deployment's admin token. Locally, npm start prints it and keeps it in .tally/admin-token; on AWS it is in Secrets Manager (see the deploy guide).",
    );
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('tally.adminToken'))).toBeNull();
    await page.$eval('#token', (e) => ((e as any).value = ''));
    await page.type('#token', ADMIN_TOKEN);
    await page.click('button ::-p-text(Sign in)');
    await page.waitForSelector('h1 ::-p-text(Projects)');
    expect(await page.title()).toBe('Projects · Tally');
    expect(problemsApartFrom(dash.problems, 401)).toEqual([]);
    await page.close();
  });

  it('creates a project and a key (a bad field is named in plain words before sending; the key shown once), then revokes it', async () => {
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    // An empty name is caught before sending.
    await page.click('button ::-p-text(Create project)');
    await page.waitForSelector('#project-name-error');
    expect(await page.$eval('#project-name-error', (e) => e.textContent)).toBe('Give the project a name, for example “Web shop”.');
    await page.type('#project-name', 'Web shop');
    await page.click('button ::-p-text(Create project)');
    await page.waitForSelector('h1 ::-p-text(Keys)');
    const projectId = decodeURIComponent(page.url().split('#/projects/')[1]!.split('/')[0]!);
    expect((await server.stack.admin('GET', '/admin/v1/projects')).body.projects.map((p: any) => p.name)).toContain('Web shop');
    await page.waitForFunction(() => (globalThis as any).document.title === 'Keys · Web shop · Tally');
    expect(await page.$eval('nav a[aria-current="page"]', (e) => e.textContent)).toBe('Keys');

    await page.type('#key-origins', 'not an origin');
    await page.type('#key-limit', '0');
    await page.click('button ::-p-text(Create key)');
    await page.waitForSelector('#key-origins-error');
    // Checked before sending, in plain words: no request reaches the API.
    expect(await page.$eval('#key-origins-error', (e) => e.textContent)).toBe(
      '“not an origin” is not an origin: write the address a page is served from, like https://app.example.com, or https://*.example.com for every subdomain.',
    );
    expect(await page.$eval('#key-limit-error', (e) => e.textContent)).toBe('Choose a limit from 1 to 600,000 requests per minute.');
    expect(await page.$eval('#key-origins', (e) => e.getAttribute('aria-invalid'))).toBe('true');
    expect(await page.$eval('#key-origins', (e) => e.getAttribute('aria-describedby'))).toContain('key-origins-error');
    await page.waitForFunction(() => (globalThis as any).document.activeElement?.id === 'key-limit');
    expect((await server.stack.admin('GET', `/admin/v1/projects/${projectId}/keys`)).body.keys).toEqual([]);

    await page.$eval('#key-origins', (e) => ((e as any).value = 'https://shop.example.com'));
    await page.$eval('#key-limit', (e) => ((e as any).value = ''));
    await page.select('#key-plan', 'pro');
    await page.click('button ::-p-text(Create key)');
    await page.waitForSelector('.new-key');
    const key = await page.$eval('.new-key code.secret', (e) => e.textContent!);
    expect(await page.$eval('.new-key', (e) => e.textContent)).toContain('you will not see it again');
    expect(await page.$('#key-origins-error')).toBeNull();
    const listed = (await server.stack.admin('GET', `/admin/v1/projects/${projectId}/keys`)).body.keys;
    expect(listed).toHaveLength(1);
    expect(key.startsWith(listed[0].key_prefix)).toBe(true);
    const row = await page.waitForSelector(`tbody tr ::-p-text(${listed[0].key_prefix})`);
    expect(row).not.toBeNull();
    expect(await text(page)).toContain('Origin https://shop.example.com');
    await dash.screenshot('keys-new-key');
    // The key works, and is shown only once: after "I have saved it" it is nowhere on the page.
    expect(
      (await server.stack.post('/v1/events', key, { events: [{ name: 'ping', user_id: 'u' }] }, { headers: { Origin: 'https://shop.example.com' } })).status,
    ).toBe(204);
    await page.click('button ::-p-text(I have saved it)');
    expect(await text(page)).not.toContain(key);

    await page.click('button[aria-label^="Revoke"]');
    await page.waitForSelector('dialog[open]');
    expect(await page.$eval('dialog[open]', (e) => e.textContent)).toContain('cannot be undone');
    await dash.screenshot('keys-revoke-dialog');
    await page.click('dialog[open] button ::-p-text(Cancel)');
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('dialog[open]'));
    expect((await server.stack.admin('GET', `/admin/v1/projects/${projectId}/keys`)).body.keys).toHaveLength(1);
    await page.click('button[aria-label^="Revoke"]');
    await (await page.waitForSelector('dialog[open] button.danger'))!.click();
    await page.waitForSelector('::-p-text(No keys yet.)');
    expect((await server.stack.admin('GET', `/admin/v1/projects/${projectId}/keys`)).body.keys).toEqual([]);
    expect((await server.stack.post('/v1/events', key, { events: [{ name: 'ping', user_id: 'u' }] })).status).toBe(401);
    // The project's card on the Projects page leads to each of its sections, the Insights (saved insights) among them.
    await dash.go('/projects');
    const card = `.card:has(a.card-title[href="#/projects/${encodeURIComponent(projectId)}/keys"])`;
    await page.waitForSelector(card);
    await dash.screenshot('projects');
    expect(await page.$$eval(`${card} .links a`, (as) => as.map((a) => `${a.textContent} ${a.getAttribute('href')}`))).toEqual(
      ['install', 'events', 'users', 'experiments', 'insights'].map(
        (s) =>
          `${{ install: 'Install', events: 'Events', users: 'People', experiments: 'Experiments', insights: 'Insights' }[s]} #/projects/${encodeURIComponent(projectId)}/${s}`,
      ),
    );
    expect(problemsApartFrom(dash.problems, 400)).toEqual([]);
    await page.close();
  });

  it('shows only install code that works: the served package and script with its hash, the code needing a key once a whole key is chosen', async () => {
    const projectId = await server.stack.createProject('Install project');
    const manifest = (await (await fetch(`${server.stack.url}/sdk/manifest.json`)).json()) as SdkManifest;
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    await dash.go(`/projects/${projectId}/install`);
    await page.waitForSelector('pre.code');
    // Before a key: the install command (it needs none), no code with a placeholder key.
    const command = `npm install ${server.stack.url}/${manifest.package}`;
    expect(await page.$$eval('pre.code', (els) => els.map((e) => e.textContent!))).toEqual([command]);
    expect(await text(page)).toContain('Paste a key or create one: the code below then carries it.');
    // A truncated key is named as such, and fills in nothing.
    await page.type('#install-key', 'tally_abc');
    await page.waitForSelector('#install-key-error');
    expect(await page.$eval('#install-key-error', (e) => e.textContent)).toMatch(/not a whole project key/);
    expect(await page.$$('pre.code')).toHaveLength(1);
    await page.$eval('#install-key', (e) => ((e as any).value = ''));

    await page.click('button ::-p-text(Create key)');
    await page.waitForSelector('.new-key');
    const key = await page.$eval('.new-key code.secret', (e) => e.textContent!);
    expect(await page.$eval('#install-key', (e) => (e as any).value)).toBe(key);
    const [scriptTag, install, app] = await page.$$eval('pre.code', (els) => els.map((e) => e.textContent!));
    expect(scriptTag).toContain(
      `<script\n  src="${server.stack.url}/${manifest.script}"\n  integrity="${manifest.integrity}"\n  crossorigin="anonymous"></script>`,
    );
    expect(scriptTag).toContain(`Tally.init({ apiKey: "${key}", baseURL: "${server.stack.url}" })`);
    expect(install).toBe(command);
    expect(app).toContain(`init({ apiKey: "${key}", baseURL: "${server.stack.url}" })`);
    expect(dash.problems).toEqual([]);
    await page.close();

    // The script tag as the page shows it, pasted into an app's page on another origin, sends its event.
    const pages = await servePages({ '/index.html': `<!doctype html><html><head><title>app</title>${scriptTag}</head><body>app</body></html>` });
    try {
      const appPage = await server.browser.newPage();
      await appPage.goto(`${pages.origin}/index.html`);
      await appPage.waitForFunction('typeof tally !== "undefined"');
      // Leaving the page sends what is queued at once (the SDK's keepalive request on pagehide).
      await appPage.goto('about:blank');
      await until(() => server.stack.rawEvents(projectId).find((e) => e.name === 'page_viewed'), 15_000, 'the snippet’s page_viewed');
      await appPage.close();
    } finally {
      await pages.close();
    }
  });

  it("fills the install snippets with the deployment's base URL from config.json (CloudFront's when it fronts the API)", async () => {
    const projectId = await server.stack.createProject('Edge install project');
    // As the stack writes it with CloudFront in front of the API: the admin API stays this origin.
    const dash = await openDashboard(server.browser, server.stack.url, { config: { baseUrl: 'https://d111111abcdef8.cloudfront.net/' } });
    const { page } = dash;
    await dash.go(`/projects/${projectId}/install`);
    await page.waitForSelector('#install-key');
    await page.type('#install-key', `tally_${'k'.repeat(43)}`);
    await page.waitForSelector('pre.code ::-p-text(Tally.init)');
    const snippets = await page.$$eval('pre.code', (els) => els.map((e) => e.textContent!));
    expect(snippets[0]).toContain(`baseURL: "https://d111111abcdef8.cloudfront.net"`);
    expect(snippets[2]).toContain(`baseURL: "https://d111111abcdef8.cloudfront.net"`);
    expect(dash.problems).toEqual([]);
    await page.close();
  });

  it('lists events sent with a key, newest first, filtered by name, each row expandable to its JSON', async () => {
    const projectId = await server.stack.createProject('Events project');
    const key = await server.stack.createKey(projectId, UNTHROTTLED_KEY);
    await sendEvents(server.stack, key, [
      { name: 'signup', user_id: 'ada', timestamp: '2026-01-01T10:00:00Z', properties: { plan: 'pro' } },
      { name: 'page_viewed', user_id: 'ada', timestamp: '2026-01-01T10:05:00Z', properties: { path: '/pricing' } },
      { name: 'page_viewed', user_id: 'bob', timestamp: '2026-01-01T10:10:00Z', properties: { path: '/' } },
    ]);
    await waitListed(server.stack, projectId, 3);
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    await dash.go(`/projects/${projectId}/events`);
    await page.waitForSelector('ol.events');
    const names = () => page.$$eval('ol.events .event-name', (els) => els.map((e) => e.textContent));
    expect(await names()).toEqual(['page_viewed', 'page_viewed', 'signup']);
    expect(await page.$$eval('ol.events .event-user', (els) => els.map((e) => e.textContent))).toEqual(['bob', 'ada', 'ada']);

    await page.type('#filter-name', 'signup');
    await page.click('button ::-p-text(Filter)');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('ol.events li').length === 1);
    expect(await names()).toEqual(['signup']);
    await page.click('ol.events summary');
    const json = JSON.parse(await page.$eval('ol.events details[open] pre', (e) => e.textContent!));
    expect(json).toMatchObject({ name: 'signup', user_id: 'ada', sent_user_id: 'ada', properties: { plan: 'pro' }, country: null });
    await dash.screenshot('events-expanded');

    // Auto-refresh picks up a new event without a click.
    await page.$eval('#filter-name', (e) => ((e as any).value = ''));
    await page.click('button ::-p-text(Filter)');
    await page.click('label.check input');
    await sendEvents(server.stack, key, [{ name: 'purchase', user_id: 'ada', timestamp: '2026-01-01T11:00:00Z' }]);
    await page.waitForFunction(() => (globalThis as any).document.querySelector('ol.events .event-name')?.textContent === 'purchase', { timeout: 12_000 });
    expect(dash.problems).toEqual([]);
    await page.close();
  });

  it('lists the people seen recently with email, name, first and last seen, searches them by email, and opens one after $identify: canonical ID, linked IDs, profile and their events', async () => {
    const projectId = await server.stack.createProject('Users project');
    const key = await server.stack.createKey(projectId, UNTHROTTLED_KEY);
    await sendEvents(server.stack, key, [
      { name: 'page_viewed', user_id: 'anon-7', timestamp: '2026-02-01T09:00:00Z' },
      { name: 'page_viewed', user_id: 'anon-8', timestamp: '2026-02-01T08:00:00Z' },
    ]);
    await sendEvents(server.stack, key, [
      {
        name: '$identify',
        user_id: 'user-42',
        timestamp: '2026-02-01T09:01:00Z',
        // Client text: the name must show as typed, not as markup.
        properties: { $anonymous_id: 'anon-7', email: 'ada@example.com', name: 'Ada <b>Lovelace</b>' },
      },
      { name: 'purchase', user_id: 'user-42', timestamp: '2026-02-01T09:02:00Z' },
    ]);
    await waitListed(server.stack, projectId, 4);
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    await dash.go(`/projects/${projectId}/users`);
    // The people, named by email, else name, else the ID they sent last; the canonical (first-seen) ID under it.
    await page.waitForSelector('table.users-table tbody tr');
    const rows = await page.$$eval('table.users-table tbody tr', (trs) => trs.map((tr: any) => [...tr.cells].slice(0, 6).map((c: any) => c.innerText.trim())));
    expect(rows).toEqual([
      ['ada@example.com\nanon-7', 'ada@example.com', 'user-42\nanon-7', '3', expect.stringMatching(/^2026-/), expect.stringMatching(/^2026-02-01 09:02/)],
      ['anon-8', '—', 'anon-8', '1', expect.stringMatching(/^2026-/), expect.stringMatching(/^2026-02-01 08:00/)],
    ]);
    expect(await page.$$eval('table.users-table thead th', (ths) => ths.map((th: any) => th.innerText.trim()))).toEqual([
      'Person',
      'Email',
      'Linked IDs',
      'Events',
      'First seen',
      'Last seen',
      'Details',
    ]);
    expect(await page.$('table.users-table b')).toBeNull();
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('People');
    expect(await page.$eval('nav a[aria-current="page"]', (e) => e.textContent)).toBe('People');
    expect(await text(page)).toContain('The 2 people seen most recently, the most recent first.');
    await dash.screenshot('people-list');
    // Search by part of the email, in another case; then a click anywhere on the row opens the person.
    await page.type('#search-users', 'EXAMPLE.COM');
    await page.click('button ::-p-text(Search)');
    await page.waitForSelector('::-p-text(with an email, name or ID containing “EXAMPLE.COM”)');
    expect(await page.$$eval('table.users-table tbody tr', (trs) => trs.length)).toBe(1);
    await page.click('table.users-table tbody tr td.num');
    await page.waitForSelector('dl.facts');
    const facts = await page.$eval('dl.facts', (e) => (e as any).innerText as string);
    expect(facts).toContain('anon-7');
    expect(facts).toContain('user-42');
    expect(facts).toContain('ada@example.com');
    expect(facts).toContain('Ada <b>Lovelace</b>');
    expect(await page.$$eval('dl.facts ul li', (els) => els.map((e) => e.textContent))).toEqual(['anon-7', 'user-42']);
    expect(await page.$eval('dl.facts dd.mono', (e) => e.textContent)).toBe('anon-7');
    await page.waitForSelector('ol.events');
    expect(await page.$$eval('ol.events .event-name', (els) => els.map((e) => e.textContent))).toEqual(['purchase', '$identify', 'page_viewed']);
    // The page is headed by the person, and each event is theirs, whichever ID sent it.
    expect(await page.$eval('h1', (e) => e.textContent)).toBe('ada@example.com');
    expect(await page.$$eval('ol.events .event-user', (els) => els.map((e) => e.textContent))).toEqual([
      'ada@example.com',
      'ada@example.com',
      'ada@example.com',
    ]);
    expect(await page.$eval('ol.events .event-user', (e) => e.getAttribute('title'))).toBe('Canonical ID: anon-7');
    expect(await page.title()).toBe('People · Users project · Tally');
    await dash.screenshot('users-found');

    // Events filtered by the signed-in ID find what the person did before signing in, named the same.
    await dash.go(`/projects/${projectId}/events`);
    await page.waitForSelector('ol.events');
    await page.type('#filter-user', 'user-42');
    await page.click('button ::-p-text(Filter)');
    await page.waitForSelector('::-p-text(3 events, newest first)');
    expect(await page.$$eval('ol.events .event-name', (els) => els.map((e) => e.textContent))).toEqual(['purchase', '$identify', 'page_viewed']);
    expect(await page.$$eval('ol.events .event-user', (els) => els.map((e) => e.textContent))).toEqual([
      'ada@example.com',
      'ada@example.com',
      'ada@example.com',
    ]);
    await dash.screenshot('events-by-person');
    await dash.go(`/projects/${projectId}/users/anon-7`);
    await page.waitForSelector('dl.facts');

    // Nobody matches: the page says so and offers the exact lookup, which says the ID is unknown.
    await page.click('.breadcrumb a ::-p-text(People)');
    // The breadcrumb navigates: the People page renders its search field when it has loaded.
    await page.waitForSelector('#search-users');
    await page.type('#search-users', 'nobody');
    await page.click('button ::-p-text(Search)');
    await page.waitForSelector('::-p-text(No one seen recently has an email, name or ID containing “nobody”.)');
    await page.click('a ::-p-text(Look up “nobody” as an exact ID)');
    await page.waitForSelector('::-p-text(User nobody not found)');

    // "." and ".." are path steps to every URL parser: the page says so instead of asking a wrong URL.
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    await dash.go(`/projects/${projectId}/users/..`);
    await page.waitForSelector('::-p-text(cannot be looked up)');
    expect(asked.filter((path) => path.startsWith('/admin/') && path.includes('/users/'))).toEqual([]);
    expect(problemsApartFrom(dash.problems, 404)).toEqual([]);
    await page.close();
  });

  it('shows 50 people, then the next ones with "Load more", each once, until there are no more', async () => {
    const projectId = await server.stack.createProject('Many people project');
    const key = await server.stack.createKey(projectId, UNTHROTTLED_KEY);
    // 53 people, person-00 seen last: the newest first means person-00 … person-49, then person-50 … person-52.
    const at = (i: number) => new Date(Date.parse('2026-03-01T12:00:00Z') - i * 60_000).toISOString();
    await sendEvents(
      server.stack,
      key,
      Array.from({ length: 53 }, (_, i) => ({ name: 'page_viewed', user_id: `person-${String(i).padStart(2, '0')}`, timestamp: at(i) })),
    );
    await waitListed(server.stack, projectId, 53);
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    await dash.go(`/projects/${projectId}/users`);
    await page.waitForSelector('table.users-table tbody tr');
    const people = () => page.$$eval('table.users-table tbody tr td:first-child', (tds) => tds.map((td: any) => td.innerText.trim()));
    expect(await people()).toHaveLength(50);
    expect(await text(page)).toContain('The 50 people seen most recently, the most recent first; 50 more at a time with “Load more”.');
    await page.click('button ::-p-text(Load more)');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table.users-table tbody tr').length === 53);
    expect(await people()).toEqual(Array.from({ length: 53 }, (_, i) => `person-${String(i).padStart(2, '0')}`));
    expect(await page.$('button ::-p-text(Load more)')).toBeNull();
    expect(await text(page)).toContain('The 53 people seen most recently, the most recent first.');
    await dash.screenshot('people-load-more');
    expect(dash.problems).toEqual([]);
    await page.close();
  });

  it('lists the events of a user linked, before the text rule, to an ID holding NUL, and says why that ID has none (issue 19, 4)', async () => {
    const projectId = await server.stack.createProject('Legacy IDs project');
    const key = await server.stack.createKey(projectId, UNTHROTTLED_KEY);
    const legacy = 'legacy\u0000anon';
    // The link and event as a server before the rule stored them: straight into the stores.
    await server.stack.deps.identities.link(projectId, legacy, 'legacy-user', Date.parse('2026-02-01T08:00:00Z'));
    const facts = { projectId, receivedMs: Date.now(), source: 'v1' as const, sdk: null, sdkVersion: null, geo: { country: null, region: null, city: null } };
    const sent = { name: 'legacy_view', user_id: legacy, timestampMs: Date.parse('2026-02-01T08:00:00Z'), properties: {} };
    await server.stack.deps.sink.put([toStoredEvent(sent, facts)]);
    await sendEvents(server.stack, key, [{ name: 'checkout', user_id: 'legacy-user', timestamp: '2026-02-01T09:00:00Z' }]);
    await waitListed(server.stack, projectId, 2);
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    await dash.go(`/projects/${projectId}/users/legacy-user`);
    await page.waitForSelector('ol.events');
    expect(await page.$$eval('dl.facts ul li', (els) => els.map((e) => e.textContent))).toEqual([legacy, 'legacy-user']);
    expect(await page.$$eval('ol.events .event-name', (els) => els.map((e) => e.textContent))).toEqual(['checkout']);
    expect(await page.$eval('#user-events ~ .notice', (e) => e.textContent)).toMatch(/^Events of one linked ID are not listed: it holds U\+0000 \(NUL\)/);
    expect(await text(page)).not.toContain('Internal server error');
    expect(dash.problems).toEqual([]);
    await page.close();
  });

  it('returns to sign-in with the API message when a call gets 401 mid-session', async () => {
    const projectId = await server.stack.createProject('Session project');
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    await page.evaluate(() => (globalThis as any).sessionStorage.setItem('tally.adminToken', 'revoked-token'));
    await dash.go(`/projects/${projectId}/keys`);
    await page.waitForSelector('#token');
    expect(await page.$eval('.notice', (e) => e.textContent)).toBe('Signed out: Invalid or missing admin token. Sign in again.');
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('tally.adminToken'))).toBeNull();
    await dash.screenshot('sign-in-after-401');
    expect(problemsApartFrom(dash.problems, 401)).toEqual([]);
    await page.close();
  });

  it('shows an event whose name and properties are HTML as text and runs nothing', async () => {
    const projectId = await server.stack.createProject('<b>XSS</b> project');
    const key = await server.stack.createKey(projectId, UNTHROTTLED_KEY);
    const evil = '<img src=x onerror=alert(1)>';
    await sendEvents(server.stack, key, [
      { name: evil, user_id: '<svg onload=alert(2)>', timestamp: '2026-03-01T00:00:00Z', properties: { html: evil, [evil]: '<script>alert(3)</script>' } },
    ]);
    await waitListed(server.stack, projectId, 1);
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await dash.go(`/projects/${projectId}/events`);
    await page.waitForSelector('ol.events');
    await page.click('ol.events summary');
    await page.waitForSelector('ol.events details[open] pre');
    expect(await page.$eval('.event-name', (e) => e.textContent)).toBe(evil);
    expect(await page.$eval('ol.events details[open] pre', (e) => e.textContent)).toContain('"<script>alert(3)</script>"');
    await dash.go(`/projects/${projectId}/users/${encodeURIComponent('<svg onload=alert(2)>')}`);
    await page.waitForSelector('ol.events');
    await page.click('ol.events summary');
    await page.waitForSelector('ol.events details[open] pre');
    // Rendered as text: no element or handler attribute came from the payload (the CSP would also block
    // an inline handler, so the absence of dialogs alone would prove nothing).
    expect(await page.$$eval('img, svg, script:not([src])', (els) => els.length)).toBe(0);
    expect(await page.$$eval('[onerror], [onload]', (els) => els.length)).toBe(0);
    expect(await text(page)).toContain('<svg onload=alert(2)>');
    expect(dialogs).toEqual([]);
    await dash.screenshot('events-xss');

    // An experiment named and goaled with HTML: the list, the form (whose goal picker lists event
    // names) and the results page show it as text.
    const experiments = `/admin/v1/projects/${projectId}/experiments`;
    const created = await server.stack.admin('POST', experiments, { name: evil, goal_event: evil, variants: ['<i>a</i>', 'b'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    for (const route of [`/projects/${projectId}/experiments`, `/projects/${projectId}/experiments/${id}`]) {
      await dash.go(route);
      await page.waitForSelector(`::-p-text(${evil})`);
      expect(await page.$$eval('img, svg, i, script:not([src]), [onerror], [onload]', (els) => els.length), route).toBe(0);
    }
    expect((await server.stack.admin('POST', `${experiments}/${id}/start`)).status).toBe(200);
    expect((await server.stack.admin('POST', `${experiments}/${id}/results/refresh`)).status).toBe(200);
    await dash.go(`/projects/${projectId}/experiments/${id}/results`);
    await page.waitForSelector('table[data-table="variants"]');
    expect(await text(page)).toContain('<i>a</i>');
    expect(await page.$$eval('img, svg, i, script:not([src]), [onerror], [onload]', (els) => els.length)).toBe(0);
    expect(dialogs).toEqual([]);
    expect(dash.problems).toEqual([]);
    await page.close();
  });
});
