/**
 * Insights a team keeps, in real Chromium against the local server: a saved "last 7 days" is still the
 * last 7 days when opened days later (the browser's clock moved); an opened saved insight shows its
 * name, is updated and renamed in place; saving under a name in use asks before replacing it; a
 * dashboard shows its saved insights, re-run, with one range for all; tables download as CSV with
 * event values neutralised for spreadsheets; a garbled share link says what is wrong. Screenshots in
 * test-output/dashboard/keep-*.png.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { clickButton, openDashboard, problemsApartFrom, seriousA11yViolations, useDashboardProject, WAIT_MS } from '../helpers/dashboard';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const value = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).value as string);
const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const FORMULA_EVENT = '=HYPERLINK("http://x","y")';

/** Moves the page's clock `days` ahead from its next load on (Date.now and new Date()). */
async function moveClock(page: Page, days: number): Promise<void> {
  await page.evaluateOnNewDocument((shift: number) => {
    const g = globalThis as any;
    const Real = g.Date;
    class Shifted extends Real {
      constructor(...args: unknown[]) {
        super(...((args.length ? args : [Real.now() + shift]) as []));
      }
      static now() {
        return Real.now() + shift;
      }
    }
    g.Date = Shifted;
  }, days * DAY_MS);
}

/** Downloads go to a fresh folder; returns a reader of the next file that lands there. */
async function downloads(page: Page): Promise<() => Promise<{ name: string; text: string }>> {
  const dir = mkdtempSync(join(tmpdir(), 'tally-csv-'));
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir });
  let seen = 0;
  return async () => {
    const until = Date.now() + WAIT_MS;
    for (;;) {
      const files = readdirSync(dir).filter((f) => f.endsWith('.csv'));
      if (files.length > seen) {
        const name = files.find((f, i) => i >= seen) ?? files.at(-1)!;
        seen = files.length;
        return { name, text: readFileSync(join(dir, name), 'utf8') };
      }
      if (Date.now() > until) throw new Error(`no CSV downloaded into ${dir}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
}

/** Waits for the dashboard's nth tile (from 1) to show text matching `pattern`. */
const tileShows = (page: Page, nth: number, pattern: RegExp) =>
  page.waitForFunction(
    (n, source) => new RegExp(source).test((globalThis as any).document.querySelector(`.dashboard-tile:nth-child(${n})`)?.innerText ?? ''),
    {},
    nth,
    pattern.source,
  );

/** How long one addition to a dashboard may take on a busy machine (saving it, loading it again). */
const ADDITION_WAIT_MS = 60_000;

describeBrowser('dashboard: insights a team keeps', () => {
  const env = useDashboardProject('keep insights', {
    beforeOpen: async ({ stack, key }) => {
      const now = Date.now();
      const at = (daysAgo: number, later = 0) => new Date(now - daysAgo * DAY_MS - 60_000 + later).toISOString();
      const events = [
        ...[0, 1, 2].map((d, i) => ({ name: 'signup', user_id: `u-${i}`, timestamp: at(d), platform: 'ios', properties: { plan: 'pro' } })),
        { name: 'signup', user_id: 'u-9', timestamp: at(1), platform: 'android' },
        // Each purchase 30 s after the same user's signup.
        ...[0, 1].map((d, i) => ({ name: 'purchase', user_id: `u-${i}`, timestamp: at(d, 30_000), platform: 'ios' })),
        { name: FORMULA_EVENT, user_id: 'u-1', timestamp: at(1) },
      ];
      const res = await stack.post('/v1/events', key, { events });
      expect(res.status, res.text).toBe(204);
    },
  });
  const api = (path: string) => `/admin/v1/projects/${env.project}${path}`;

  async function runTrends(page: Page, event: string) {
    await page.waitForSelector('#series-0-event');
    await page.$eval('#series-0-event', (el: any) => (el.value = ''));
    await page.type('#series-0-event', event);
    await clickButton(page, 'Show trends');
    await page.waitForSelector('[data-table="trend-totals"]');
  }

  it('keeps a saved "last 7 days" relative: opened 10 days later it covers the 7 days ending that day', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/insights/trends`);
    expect(await value(page, '#trend-range')).toBe('last_7_days');
    await runTrends(page, 'signup');
    await page.type('#save-insight-name', 'Signups this week');
    await clickButton(page, 'Save insight');
    await page.waitForSelector('.save-insight .status-line ::-p-text(Saved as)');
    const saved = (await env.stack.admin('GET', api('/saved-insights'))).body.saved_insights.find((s: any) => s.name === 'Signups this week');
    expect(saved.definition).toMatchObject({ range: 'last_7_days', date_to: dayOf(Date.now()) });

    const later = await openDashboard(env.browser, env.stack.url, { beforeLoad: (p) => moveClock(p, 10) });
    await later.go(`/projects/${env.project}/insights`);
    await later.page.waitForSelector('.saved-insights a ::-p-text(Signups this week)');
    await later.page.click('.saved-insights a ::-p-text(Signups this week)');
    await later.page.waitForSelector('[data-table="trend-totals"]');
    const laterToday = Date.now() + 10 * DAY_MS;
    expect(await value(later.page, '#trend-range')).toBe('last_7_days');
    expect(await value(later.page, '#trend-from')).toBe(dayOf(laterToday - 6 * DAY_MS));
    expect(await value(later.page, '#trend-to')).toBe(dayOf(laterToday));
    // The query that ran is the moved range.
    expect(await later.page.evaluate(() => decodeURIComponent((globalThis as any).location.hash))).toContain(`"date_to":"${dayOf(laterToday)}"`);
    expect(problemsApartFrom(later.problems)).toEqual([]);
    await later.page.close();
  });

  it('shows an opened saved insight by its name, updates it in place and renames it', async () => {
    const { page } = env.dash;
    const created = await env.stack.admin('POST', api('/saved-insights'), {
      name: 'Purchases',
      kind: 'trends',
      definition: { series: [{ event: 'purchase' }], date_from: dayOf(Date.now() - 6 * DAY_MS), date_to: dayOf(Date.now()), range: 'last_7_days' },
    });
    const id = created.body.id as string;
    await env.dash.go(`/projects/${env.project}/insights`);
    await page.click('.saved-insights a ::-p-text(Purchases)');
    await page.waitForSelector('[data-table="trend-totals"]');
    await page.waitForSelector('.saved-insight-title h1');
    expect(await text(page, '.saved-insight-title h1')).toBe('Purchases');
    expect(await text(page, '.saved-insight-title .kicker')).toBe('Trends · saved insight');
    await env.dash.screenshot('keep-saved-insight');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Update in place: the same saved insight (its ID) now holds the breakdown.
    await page.select('#trend-breakdown', 'platform');
    await clickButton(page, 'Show trends');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-table="trend-totals"]')?.innerText.includes('ios'));
    await clickButton(page, 'Update “Purchases”');
    await page.waitForSelector('.save-insight .status-line ::-p-text(Updated “Purchases”)');
    const updated = (await env.stack.admin('GET', api(`/saved-insights/${id}`))).body;
    expect(updated.definition).toMatchObject({ breakdown: 'platform', range: 'last_7_days' });
    expect((await env.stack.admin('GET', api('/saved-insights'))).body.saved_insights.filter((s: any) => s.name === 'Purchases')).toHaveLength(1);

    // Rename in place.
    await clickButton(page, 'Rename');
    await page.waitForSelector('#rename-name');
    await page.$eval('#rename-name', (el: any) => (el.value = ''));
    await page.type('#rename-name', 'Purchases by platform');
    await clickButton(page, 'Save name');
    await page.waitForSelector('.saved-insight-title h1 ::-p-text(Purchases by platform)');
    expect((await env.stack.admin('GET', api(`/saved-insights/${id}`))).body.name).toBe('Purchases by platform');
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });

  it('asks before replacing a saved insight of the same name, and replaces it when confirmed', async () => {
    const { page } = env.dash;
    const first = await env.stack.admin('POST', api('/saved-insights'), {
      name: 'Weekly signups',
      kind: 'trends',
      definition: { series: [{ event: 'signup' }], date_from: '2026-01-01', date_to: '2026-01-07' },
    });
    await env.dash.go(`/projects/${env.project}/insights/trends`);
    await runTrends(page, 'purchase');
    await page.type('#save-insight-name', ' weekly Signups');
    await clickButton(page, 'Save insight');
    await page.waitForSelector('dialog[open]');
    expect(await text(page, 'dialog[open]')).toContain('A saved insight named “Weekly signups” exists already. Replace it with this one?');
    await env.dash.screenshot('keep-replace-dialog');
    // Cancel keeps both as they were.
    await clickButton(page, 'Cancel');
    await page.waitForSelector('dialog[open]', { hidden: true });
    expect((await env.stack.admin('GET', api(`/saved-insights/${first.body.id}`))).body.definition.series[0].event).toBe('signup');
    await clickButton(page, 'Save insight');
    await page.waitForSelector('dialog[open]');
    await clickButton(page, 'Replace');
    await page.waitForSelector('.save-insight .status-line ::-p-text(Replaced)');
    const all = (await env.stack.admin('GET', api('/saved-insights'))).body.saved_insights.filter((s: any) => s.name.trim().toLowerCase() === 'weekly signups');
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ id: first.body.id, definition: { series: [{ event: 'purchase' }], range: 'last_7_days' } });
    // The page now shows the saved insight it replaced.
    await page.waitForSelector('.saved-insight-title h1');
    expect(await text(page, '.saved-insight-title h1')).toBe('weekly Signups');
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });

  it('shows a dashboard of two saved insights, re-run, with a range for all of them and a deleted tile', async () => {
    const { page } = env.dash;
    const save = async (name: string, kind: string, definition: unknown) =>
      (await env.stack.admin('POST', api('/saved-insights'), { name, kind, definition })).body.id as string;
    const old = { date_from: '2026-01-01', date_to: '2026-01-07' };
    const trends = await save('Signups (fixed January)', 'trends', { series: [{ event: 'signup' }], ...old });
    const funnel = await save('Signup to purchase', 'funnels', { steps: [{ event: 'signup' }, { event: 'purchase' }], ...old });
    const gone = await save('Gone soon', 'trends', { series: [{ event: 'purchase' }], ...old });
    await env.dash.go(`/projects/${env.project}/dashboards`);
    await page.waitForSelector('#dashboard-name');
    await page.type('#dashboard-name', 'Growth');
    await clickButton(page, 'Create dashboard');
    await page.waitForSelector('h1 ::-p-text(Growth)');
    for (const [shown, id] of [trends, funnel, gone].entries()) {
      // The tiles already shown have their answers first. A tile grows when its answer arrives, which
      // moves the form below it, and puppeteer clicks where it measured the button a moment before:
      // a tile answered in between can make that click land beside the button. A full CI run timed
      // out here waiting for the third tile, with no error shown.
      await page.waitForFunction(
        (n) => (globalThis as any).document.querySelectorAll('.dashboard-tile [data-table]').length === n,
        { timeout: ADDITION_WAIT_MS },
        shown,
      );
      await page.waitForSelector(`#dashboard-add option[value="${id}"]`);
      await page.select('#dashboard-add', id);
      // The button is enabled once the choice is made and the previous addition has finished. An
      // addition saves the dashboard and loads it again while the tiles' queries run at a lower
      // priority: on a machine busy with other tests that can take longer than the default wait.
      await page.waitForFunction(
        () => {
          const button = [...(globalThis as any).document.querySelectorAll('button')].find((b: any) => b.textContent.trim() === 'Add to dashboard');
          return button && !button.disabled;
        },
        { timeout: ADDITION_WAIT_MS },
      );
      await clickButton(page, 'Add to dashboard');
      const tiles = shown + 1;
      await page
        .waitForFunction((n) => (globalThis as any).document.querySelectorAll('.dashboard-tile').length === n, { timeout: ADDITION_WAIT_MS }, tiles)
        .catch(async (err: Error) => {
          // Say what the page showed instead (an error it reported, the tiles it has, whether the
          // addition is still chosen and Add enabled: then the click never reached the button).
          const shown = await page.evaluate(() => {
            const doc = (globalThis as any).document;
            const add = [...doc.querySelectorAll('button')].find((b: any) => b.textContent.trim() === 'Add to dashboard');
            return {
              alerts: [...doc.querySelectorAll('[role=alert]')].map((e: any) => e.textContent),
              tiles: doc.querySelectorAll('.dashboard-tile').length,
              chosen: doc.querySelector('#dashboard-add')?.value,
              addEnabled: add ? !add.disabled : undefined,
            };
          });
          throw new Error(`${err.message}: waiting for ${tiles} tile(s), the page shows ${JSON.stringify(shown)}`);
        });
    }
    // Each tile runs its own (fixed, January) range: nothing then.
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.dashboard-tile [data-table]').length === 3);
    expect(await text(page, '.dashboard-tile:nth-child(1) [data-table="trend-totals"]')).toMatch(/signup: events\s+0/);

    // One range for all: the last 7 days; each tile runs again and counts this week's events. All
    // three, before the page is reloaded below: a tile's query still running then is cut off, and
    // puppeteer never sees that request end, so every later wait for the page's network to go quiet
    // (env.dash.go) timed out.
    await page.select('#dashboard-range', 'last_7_days');
    await clickButton(page, 'Apply range');
    await tileShows(page, 1, /signup: events\s+4/);
    await tileShows(page, 2, /2\. purchase\s+2 users/);
    await tileShows(page, 3, /purchase: events\s+2/);
    const funnelText = await text(page, '.dashboard-tile:nth-child(2)');
    expect(funnelText).toMatch(/1\. signup\s+4 users · 100%/);
    expect(funnelText).toMatch(/2\. purchase\s+2 users · 50%/);
    expect(await text(page, '.dashboard-tile:nth-child(1) .muted')).toBe(`Trends · Last 7 days: ${dayOf(Date.now() - 6 * DAY_MS)} to ${dayOf(Date.now())}`);
    expect((await env.stack.admin('GET', api('/dashboards'))).body.dashboards[0].range_override).toEqual({ range: 'last_7_days' });

    // A saved insight deleted since: its tile says so and can be removed.
    expect((await env.stack.admin('DELETE', api(`/saved-insights/${gone}`))).status).toBe(204);
    await page.reload({ waitUntil: 'networkidle0' });
    await page.waitForSelector('.dashboard-tile-deleted');
    expect(await text(page, '.dashboard-tile-deleted')).toContain('The saved insight this tile showed was deleted.');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.dashboard-tile [data-table]').length === 2);
    await env.dash.screenshot('keep-dashboard');
    expect(await seriousA11yViolations(page)).toEqual([]);
    const narrow = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await narrow.go(await page.evaluate(() => (globalThis as any).location.hash.slice(1)));
    await narrow.page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.dashboard-tile [data-table]').length === 2);
    await narrow.screenshot('keep-dashboard');
    await narrow.page.close();
    // Renamed in place.
    await clickButton(page, 'Rename');
    await page.waitForSelector('#rename-name');
    await page.$eval('#rename-name', (el: any) => (el.value = ''));
    await page.type('#rename-name', 'Growth this week');
    await clickButton(page, 'Save name');
    await page.waitForSelector('h1 ::-p-text(Growth this week)');
    expect((await env.stack.admin('GET', api('/dashboards'))).body.dashboards[0].name).toBe('Growth this week');
    await clickButton(page, 'Remove the deleted insight');
    await page.waitForSelector('.dashboard-tile-deleted', { hidden: true });
    expect(await page.$$eval('.dashboard-tile', (els) => els.length)).toBe(2);
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });

  it('downloads a trends table as CSV with exactly its cells, an event value starting with = neutralised', async () => {
    const { page } = env.dash;
    const next = await downloads(page);
    await env.dash.go(`/projects/${env.project}/insights/trends`);
    await runTrends(page, FORMULA_EVENT);
    await page.click('button[aria-label="Download CSV: Totals"]');
    const file = await next();
    expect(file.name).toBe('trends-totals.csv');
    const rows = file.text.replace(/^\uFEFF/, '').split('\r\n');
    expect(rows[0]).toBe('Line,Total,Previous period,Change');
    // The event's name starts with "=": quoted, its quotes doubled, and prefixed with ' so it is text.
    expect(rows[1]).toBe(`"'=HYPERLINK(""http://x"",""y""): events",1,0,new`);
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });

  it('suggests the property names of the latest events in the trends and funnels property fields', async () => {
    const { page } = env.dash;
    const options = (list: string) =>
      page.waitForFunction((id) => [...((globalThis as any).document.getElementById(id)?.options ?? [])].map((o: any) => o.value).includes('plan'), {}, list);
    await env.dash.go(`/projects/${env.project}/insights/trends`);
    await page.waitForSelector('#trend-breakdown');
    await page.select('#trend-breakdown', 'property');
    await page.waitForSelector('#trend-breakdown-property');
    expect(await page.$eval('#trend-breakdown-property', (el: any) => el.getAttribute('list'))).toBe('trend-property-names');
    await options('trend-property-names');
    await env.dash.go(`/projects/${env.project}/insights/funnels`);
    await page.waitForSelector('#funnel-breakdown');
    await page.select('#funnel-breakdown', 'property');
    await page.waitForSelector('#funnel-breakdown-property');
    expect(await page.$eval('#funnel-breakdown-property', (el: any) => el.getAttribute('list'))).toBe('funnel-property-names');
    await options('funnel-property-names');
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });

  it('says what is wrong with a garbled share link instead of showing an empty form', async () => {
    const { page } = env.dash;
    const base = `/projects/${env.project}/insights/trends`;
    await env.dash.go(`${base}?d=${encodeURIComponent('{"series":[{"event":"signup"}],"date_fr')}`);
    await page.waitForSelector('.link-problem');
    expect(await text(page, '.link-problem')).toBe(
      'This link could not be opened as it is: its definition is not readable JSON (the link may have been cut short when it was copied): the form starts empty.',
    );
    await env.dash.screenshot('keep-garbled-link');
    expect(await seriousA11yViolations(page)).toEqual([]);

    const definition = { series: [{ event: 'signup' }], date_from: '2026-01-01', date_to: '2026-01-07', colour: 'red' };
    await env.dash.go(`${base}?${new URLSearchParams({ d: JSON.stringify(definition) })}`);
    await page.waitForSelector('.link-problem ::-p-text(unknown field)');
    expect(await text(page, '.link-problem')).toBe('This link could not be opened as it is: unknown field "colour"; the form shows what could be read.');
    expect(await value(page, '#series-0-event')).toBe('signup');

    await env.dash.go(
      `${base}?${new URLSearchParams({ d: JSON.stringify({ ...definition, colour: undefined, date_from: '3000-01-01', date_to: '3000-01-02' }) })}`,
    );
    await page.waitForSelector('.link-problem ::-p-text(date_from)');
    expect(await text(page, '.link-problem')).toBe(
      'This link could not be opened as it is: date_from: date_from must be from 1970-01-01 to 2999-12-31; date_to: date_to must be from 1970-01-01 to 2999-12-31; the form shows what could be read.',
    );
    expect(problemsApartFrom(env.dash.problems, 400)).toEqual([]);
  });
});
