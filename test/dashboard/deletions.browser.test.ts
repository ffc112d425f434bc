/**
 * A person's deletion from the dashboard (docs/dashboard.md "Person" and "Deletions"): an admin opens a
 * person whose anonymous ID is markup, presses "Delete this person", reads what goes (the IDs as text,
 * the stores), gives a reason, suppresses later events and types the ID before the button enables; the
 * page links to the deletion, which refreshes by itself from pending to done once the compaction job
 * ran and shows its receipt; the person is gone from People and their page, another person stays.
 * Before that, "Export" asks for the person's export and links to its file once the job made it.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { clickButton, openDashboard, seriousA11yViolations, setInputValue, useDashboardProject } from '../helpers/dashboard';

const EVIL = '<img src=x onerror=alert(1)>';
/** A long canonical ID (an identity provider's subject), to see that it wraps instead of overflowing. */
const ACCOUNT = `auth0|${'5f2c9a1e7b3d4c6a8e0f1b2d3c4e5f6a'.repeat(3)}`;

const text = (page: Page) => page.evaluate(() => (globalThis as any).document.body.innerText as string);
const hostileElements = (page: Page) => page.$$eval('img, svg, script:not([src]), [onerror], [onload]', (els) => els.length);
/** The width the page lays out beyond the window (0: nothing scrolls sideways). */
const sideways = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);

describeBrowser('deleting a person from the dashboard', () => {
  const ctx = useDashboardProject('Privacy shop', {
    beforeOpen: async ({ stack, key, project }) => {
      const res = await stack.post('/v1/events', key, {
        events: [
          { name: 'view', user_id: EVIL, timestamp: '2026-03-01T10:00:00Z' },
          {
            name: '$identify',
            user_id: ACCOUNT,
            timestamp: '2026-03-01T10:01:00Z',
            properties: { $anonymous_id: EVIL, email: 'ann@example.com', name: 'Ann' },
          },
          { name: 'purchase', user_id: ACCOUNT, timestamp: '2026-03-01T10:02:00Z' },
          { name: 'view', user_id: 'bob', timestamp: '2026-03-01T11:00:00Z' },
          { name: 'view', user_id: 'bob', timestamp: '2026-03-01T11:05:00Z' },
        ],
      });
      expect(res.status, res.text).toBe(204);
      for (let i = 0; i < 100; i++) {
        const listed = await stack.admin('GET', `/admin/v1/projects/${project}/users`);
        if (listed.body.users.length === 2) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the two people were not listed');
    },
  });

  it('fits a narrow screen: the dialog wraps a long ID instead of scrolling sideways', async () => {
    const narrow = await openDashboard(ctx.browser, ctx.stack.url, { width: 375 });
    const { page } = narrow;
    await narrow.go(`/projects/${ctx.project}/users/${encodeURIComponent(ACCOUNT)}`);
    await page.waitForSelector('ol.events');
    await clickButton(page, 'Delete this person');
    await page.waitForSelector('dialog[open]');
    expect(await sideways(page)).toBe(0);
    expect(await page.$eval('dialog[open]', (d) => (d as any).scrollWidth - (d as any).clientWidth)).toBe(0);
    await narrow.screenshot('deletion-dialog');
    // Cancel sends nothing.
    await clickButton(page, 'Cancel');
    await page.waitForSelector('dialog[open]', { hidden: true });
    expect((await ctx.stack.admin('GET', `/admin/v1/projects/${ctx.project}/deletions`)).body.deletions).toEqual([]);
    expect(narrow.problems).toEqual([]);
    await page.close();
  });

  it('exports the person: Export shows the state, then the counts and a download link to the NDJSON', async () => {
    const { dash, stack, project } = ctx;
    const { page } = dash;
    await dash.go(`/projects/${project}/users/${encodeURIComponent(ACCOUNT)}`);
    await page.waitForSelector('ol.events');
    await clickButton(page, 'Export');
    await page.waitForSelector('.export-state .status-badge.status-pending');
    expect(await page.$eval('.export-state', (p) => p.textContent)).toContain('Waiting for the compaction job’s run');
    // Export is not offered twice while one is under way.
    expect(await page.$eval('.privacy-request button', (b) => (b as unknown as { disabled: boolean }).disabled)).toBe(true);
    await stack.compaction.runNow();
    const link = await page.waitForSelector('.export-state a ::-p-text(Download the export (NDJSON))');
    expect(await page.$eval('.export-state', (p) => p.textContent)).toContain('3 events, 1 identity link, 1 profile, 0 assignments.');
    // The link is the API's download link: it serves the person's records, every ID of theirs.
    const href = await link!.evaluate((a) => (a as unknown as { href: string }).href);
    const file = await fetch(href);
    expect(file.status).toBe(200);
    const lines = (await file.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; name?: string; user_id?: string });
    expect(
      lines
        .filter((l) => l.type === 'event')
        .map((l) => l.name)
        .sort(),
    ).toEqual(['$identify', 'purchase', 'view']);
    expect(lines.some((l) => JSON.stringify(l).includes('bob'))).toBe(false);
    expect(await hostileElements(page)).toBe(0);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dash.screenshot('person-export');
    // Opened again, the page shows the person's export as it is.
    await dash.go(`/projects/${project}/users/bob`);
    await page.waitForSelector('ol.events');
    expect(await page.$('.export-state')).toBeNull();
    await dash.go(`/projects/${project}/users/${encodeURIComponent(EVIL)}`);
    await page.waitForSelector('.export-state .status-badge.status-done');
    expect(dash.problems).toEqual([]);
  });

  it('asks what goes, takes the typed ID, and shows the deletion going from pending to done with its receipt', async () => {
    const { dash, stack, project } = ctx;
    const { page } = dash;
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await dash.go(`/projects/${project}/users/${encodeURIComponent(EVIL)}`);
    await page.waitForSelector('h1 ::-p-text(ann@example.com)');
    await page.waitForSelector('ol.events');
    await clickButton(page, 'Delete this person');
    await page.waitForSelector('dialog[open]');
    await dash.screenshot('deletion-dialog-open');
    const dialog = await page.$eval('dialog[open]', (d) => (d as unknown as { innerText: string }).innerText);
    // The IDs, as text, and every store that is emptied.
    // The anonymous ID came first, so it is the person's canonical ID (docs/identity-and-experiments.md).
    const person = (await stack.admin('GET', `/admin/v1/projects/${project}/users/${encodeURIComponent(ACCOUNT)}`)).body;
    expect(person.user_id).toBe(EVIL);
    expect(await page.$$eval('dialog[open] ul.person-ids li', (lis) => lis.map((li) => li.textContent))).toEqual([EVIL, ACCOUNT]);
    for (const store of [
      'events, every copy',
      'identity links and profile (email, name)',
      'experiment assignments',
      'recomputed without them',
      'cached insight results',
    ])
      expect(dialog).toContain(store);
    expect(dialog).toContain('Suppress future events');
    expect(dialog).toContain("From now on, events of this person's IDs are accepted and dropped: never stored, linked or shown. Permanent");
    const confirm = async () =>
      page.$eval('dialog[open] .actions button.danger', (b) => ({ text: b.textContent, disabled: (b as unknown as { disabled: boolean }).disabled }));
    // The button waits for the canonical ID (shown above the field) typed exactly: not a part of it, not another ID of the person.
    expect(await confirm()).toEqual({ text: 'Delete this person', disabled: true });
    await page.type('dialog[open] input[type="text"]', EVIL.slice(0, 12));
    expect((await confirm()).disabled).toBe(true);
    await setInputValue(page, 'dialog[open] input[type="text"]', ACCOUNT);
    expect((await confirm()).disabled).toBe(true);
    await setInputValue(page, 'dialog[open] input[type="text"]', EVIL);
    expect((await confirm()).disabled).toBe(false);
    await page.type('#deletion-reason', 'GDPR art. 17, ticket <b>42</b>');
    await page.click('dialog[open] input[type="checkbox"]');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(await hostileElements(page)).toBe(0);
    await dash.screenshot('deletion-dialog');

    await page.click('dialog[open] .actions button.danger');
    await page.waitForSelector('dialog[open]', { hidden: true });
    const link = await page.waitForSelector('a ::-p-text(Follow the deletion and its receipt)');
    const asked = (await stack.admin('GET', `/admin/v1/projects/${project}/deletions`)).body.deletions;
    expect(asked).toMatchObject([{ user_id: EVIL, reason: 'GDPR art. 17, ticket <b>42</b>', suppress: true, state: 'pending', requested_by: 'admin token' }]);
    await link!.click();
    await page.waitForSelector('h1 ::-p-text(Deletion)');
    await page.waitForSelector('.status-badge.status-pending');
    expect(await text(page)).toContain('Waiting for the compaction job’s next run');

    // The job's run carries it out; the open page reads it again by itself and shows the receipt.
    await stack.compaction.runNow();
    await page.waitForSelector('.status-badge.status-done');
    await page.waitForSelector('table.receipt');
    const done = (await stack.admin('GET', `/admin/v1/projects/${project}/deletions/${asked[0].id}`)).body.deletion;
    expect(done.state).toBe('done');
    const rows = await page.$$eval('table.receipt tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows.map((r) => r[0])).toEqual([
      'Identity links and profile (email, name)',
      'Experiment assignments',
      'Events of the newest hours (landing files)',
      'Events, compacted (curated files)',
      'ID links of the newest hours (landing files)',
      'ID links, compacted (curated files)',
      'Experiment results (recomputed without the person)',
      'Cached insight results',
      'Exports of the person (files and requests)',
    ]);
    // Each line as the API's receipt has it; the person's three events went, from one file layer or the other.
    expect(rows.map((r) => r[1])).toEqual(
      done.receipt.map((l: { removed: number; store: string }) => expect.stringMatching(new RegExp(`^${l.removed} [a-z ]+$`))),
    );
    const events = done.receipt.filter((l: { store: string }) => l.store.endsWith('_events')).reduce((n: number, l: { removed: number }) => n + l.removed, 0);
    expect(events).toBe(3);
    const page1 = await text(page);
    expect(page1).toContain(EVIL);
    expect(page1).toContain('GDPR art. 17, ticket <b>42</b>');
    expect(page1).toContain("Suppressed: later events of the person's IDs are accepted and dropped (permanent)");
    expect(page1).toContain('Swept again after each run of the job until');
    expect(await page.$$eval('dl.facts ul li', (lis) => lis.map((li) => li.textContent))).toEqual([...done.ids]);
    expect(await hostileElements(page)).toBe(0);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dash.screenshot('deletion-receipt');

    // The Deletions page (in the project's navigation) lists it, done.
    await page.click('nav a ::-p-text(Deletions)');
    await page.waitForSelector('table.deletions-table');
    const listed = await page.$$eval('table.deletions-table tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)),
    );
    expect(listed).toEqual([[EVIL, 'done', 'admin token']]);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await dash.screenshot('deletions');

    // The person is gone: not on People (Bob still is), and their page finds no one.
    await page.click('nav a ::-p-text(People)');
    await page.waitForSelector('table.users-table');
    expect(await page.$$eval('table.users-table tbody tr td:first-child a', (as) => as.map((a) => a.textContent))).toEqual(['bob']);
    await dash.go(`/projects/${project}/users/${encodeURIComponent(EVIL)}`);
    await page.waitForSelector('main p.error');
    expect(await page.$eval('main p.error', (p) => p.textContent)).toContain('not found');
    expect(await page.$('ol.events')).toBeNull();
    expect(dialogs).toEqual([]);
    expect(dash.problems.filter((p) => !p.includes('status of 404'))).toEqual([]);
  });
});
