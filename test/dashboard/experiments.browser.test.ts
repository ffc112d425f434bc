/**
 * The experiments and results pages in real Chromium against the local server: create (fields checked
 * before sending, in plain words; the API's own refusal), edit, start and stop with confirmations, the
 * read-only summary of a started experiment, the list at a glance, events sent over HTTP,
 * Refresh, the tables, both uPlot charts, the "How this was computed" query, the SRM warning, the
 * empty states, axe-core at 1280 and 375 px, and screenshots of every page (test-output/dashboard/).
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { formatInterval, formatPValue, formatRelative } from '../../dashboard/src/results/format-stats';
import { decisionStatement } from '../../dashboard/src/results/verdict';
import { describeBrowser } from '../helpers/browser';
import { clickButton, refreshResults, openDashboard, problemsApartFrom, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

async function fill(page: Page, selector: string, value: string): Promise<void> {
  await page.click(selector, { count: 3 });
  await page.keyboard.press('Backspace');
  if (value) await page.type(selector, value);
}

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);

/** The rows of a results table as arrays of cell texts. */
const tableRows = (page: Page, name: string) =>
  page.$$eval(`table[data-table="${name}"] tbody tr`, (rows) => rows.map((r) => [...(r as any).cells].map((c: any) => c.innerText.trim())));

/** Canvas sizes and legend series labels of the uPlot chart named `name`. */
const chartInfo = (page: Page, name: string) =>
  page.$eval(`[data-chart="${name}"]`, (el: any) => {
    const canvas = el.querySelector('canvas');
    return {
      width: canvas?.getBoundingClientRect().width ?? 0,
      height: canvas?.getBoundingClientRect().height ?? 0,
      legend: [...el.querySelectorAll('.u-legend .u-series .u-label')].map((l: any) => l.textContent),
    };
  });

describeBrowser('dashboard: experiments and results', () => {
  let experimentId = '';
  let srmId = '';
  let seriesId = '';
  let t0 = 0;
  /** The local server's clock runs this far behind real time (a run that started days ago). */
  let clockOffsetMs = 0;
  const base = () => `/admin/v1/projects/${env.project}/experiments`;
  const send = async (events: unknown[]) => expect((await env.stack.post('/v1/events', env.key, { events })).status).toBe(204);
  const exposure = (user: string, name: string, variant: string, at: number) => ({
    name: '$experiment_exposure',
    user_id: user,
    timestamp: new Date(at).toISOString(),
    properties: { $experiment_name: name, $variant: variant },
  });

  const env = useDashboardProject('dashboard experiments', {
    clock: () => Date.now() + clockOffsetMs,
    // Event names seen recently: the goal field offers them.
    beforeOpen: () =>
      send([
        { name: 'purchase', user_id: 'someone', timestamp: Date.now() - 60_000 },
        { name: 'signup', user_id: 'someone', timestamp: Date.now() - 60_000 },
      ]),
  });

  it('creates an experiment, checking the form before sending (in plain words) and showing the API’s refusal, then edits it', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments`);
    await page.waitForSelector('::-p-text(No experiments yet)');
    await env.dash.screenshot('experiments-empty');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await clickButton(page, 'Create experiment');
    await page.waitForSelector('#experiment-name');
    // The goal event is offered from the names seen recently ($ events left out).
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#recent-event-names option').length === 2);
    expect(await page.$$eval('#recent-event-names option', (o) => o.map((x: any) => x.value))).toEqual(['purchase', 'signup']);

    // Empty required fields and a duplicate variant are caught before anything is sent, in plain words.
    const writes: string[] = [];
    page.on('request', (r) => r.method() !== 'GET' && writes.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await fill(page, '#variant-1', 'control');
    await clickButton(page, 'Save');
    await page.waitForSelector('#experiment-name-error');
    expect(await text(page, '#experiment-name-error')).toBe('Give the experiment a name, for example “Checkout button”.');
    expect(await text(page, '#experiment-goal-error')).toBe('Choose the goal event: the event that counts as a conversion, for example “purchase”.');
    expect(await text(page, '#variants-error')).toBe('Give each variant its own name: “control” appears more than once.');
    expect(await text(page, '[role="alert"]')).toBe('Not created: fix the fields marked below.');
    expect(await text(page, 'main')).not.toMatch(/goal_event|must not be empty/);
    // Focus goes to the first field marked.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe('experiment-name');
    expect(writes).toEqual([]);
    await env.dash.screenshot('experiment-new-error');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // A fixed field loses its message at once.
    await page.type('#experiment-name', 'Checkout button');
    await page.waitForSelector('#experiment-name-error', { hidden: true });

    await page.type('#experiment-goal', 'purchase');
    await fill(page, '#variant-1', 'green');
    await clickButton(page, 'Add variant');
    await page.type('#variant-2', 'blue');
    await page.click('button[aria-label="Remove variant 3"]');
    expect(await page.$('#variant-2')).toBeNull();
    await clickButton(page, 'Save');
    await page.waitForFunction(() => /\/experiments\/[0-9a-f-]{36}$/.test((globalThis as any).location.hash));
    experimentId = (await page.evaluate(() => (globalThis as any).location.hash as string)).split('/').pop()!;
    await page.waitForSelector('::-p-text(Created.)');
    const created = (await env.stack.admin('GET', `${base()}/${experimentId}`)).body;
    expect(created).toMatchObject({ name: 'Checkout button', goal_event: 'purchase', status: 'created' });
    expect(created.variants[0]).toBe('control');
    expect(created.variants).toHaveLength(2);

    // Edit while created. Saved with nothing changed, Start is the one primary button.
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#experiment-name')?.value === 'Checkout button');
    const buttons = () =>
      page.$$eval('.lifecycle button', (bs) =>
        bs.map((b: any) => ({ name: b.textContent.trim(), primary: !b.classList.contains('secondary'), disabled: b.disabled })),
      );
    expect(await buttons()).toEqual([
      { name: 'Save', primary: false, disabled: true },
      { name: 'Start', primary: true, disabled: false },
    ]);
    await fill(page, '#experiment-description', 'Green button against the blue one');
    // Unsaved changes: Save is the primary button, and Start waits for them.
    await page.waitForSelector('::-p-text(Save your changes before starting.)');
    expect(await buttons()).toEqual([
      { name: 'Save', primary: true, disabled: false },
      { name: 'Start', primary: false, disabled: true },
    ]);
    await clickButton(page, 'Save');
    await page.waitForSelector('::-p-text(Saved.)');
    expect((await env.stack.admin('GET', `${base()}/${experimentId}`)).body.description).toBe('Green button against the blue one');

    // The API's own refusal (a name another experiment holds) is shown as it says it.
    await env.stack.admin('POST', base(), { name: 'Taken name', goal_event: 'purchase' });
    await fill(page, '#experiment-name', 'taken-name');
    await clickButton(page, 'Save');
    await page.waitForSelector('::-p-text(clashes with)');
    expect(await text(page, '[role="alert"]')).toMatch(/^The name "taken-name" clashes with experiment .* \("Taken name"\)/);
    // Once the page knows that name, the clash is said before sending, in plain words, under the field.
    await env.dash.go(`/projects/${env.project}/experiments`);
    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}`);
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#experiment-name')?.value === 'Checkout button');
    const sentBefore = writes.length;
    await fill(page, '#experiment-name', 'taken-name');
    await clickButton(page, 'Save');
    await page.waitForSelector('#experiment-name-error');
    expect(await text(page, '#experiment-name-error')).toBe(
      'Another experiment is called “Taken name”: names must differ by more than case, spaces and punctuation. Choose another name.',
    );
    expect(writes.length).toBe(sentBefore);
    await fill(page, '#experiment-name', 'Checkout button');
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('.lifecycle button:last-of-type').disabled);
    await env.dash.screenshot('experiment-created');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems, 400, 404, 409)).toEqual([]);
  });

  it('shows the not-started state, starts after a confirmation, then shows a read-only summary with one primary action', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await page.waitForSelector('::-p-text(has not started)');
    await env.dash.screenshot('results-not-started');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}`);
    await clickButton(page, 'Start');
    await page.waitForSelector('dialog[open]');
    const dialog = await text(page, 'dialog[open]');
    expect(dialog).toContain('assigned');
    expect(dialog).toContain('can no longer be edited');
    await env.dash.screenshot('experiment-start-confirm');
    expect(await seriousA11yViolations(page)).toEqual([]);
    // Escape cancels: nothing starts.
    await page.keyboard.press('Escape');
    await page.waitForSelector('dialog[open]', { hidden: true });
    // Focus is back on the button that opened the dialog.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.textContent)).toBe('Start');
    expect((await env.stack.admin('GET', `${base()}/${experimentId}`)).body.status).toBe('created');
    // Keyboard alone: focus starts on Cancel, Tab to the confirmation, Enter.
    await clickButton(page, 'Start');
    await page.waitForSelector('dialog[open]');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.textContent)).toBe('Cancel');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.textContent)).toBe('Yes, start it');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.status-badge.status-running');
    const started = (await env.stack.admin('GET', `${base()}/${experimentId}`)).body;
    expect(started.status).toBe('running');
    t0 = Date.parse(started.started_at);
    // Once started: a read-only summary, not a greyed-out form; the status said once; one primary action.
    expect(await page.$('form')).toBeNull();
    const summary = await text(page, 'dl.experiment-facts');
    expect(summary).toContain('purchase');
    expect(summary).toContain('control (control)');
    expect(summary).toContain('Green button against the blue one');
    expect((await text(page, 'main')).match(/running/gi)).toEqual(['running']);
    expect(await page.$$eval('main a.button, main button:not(.secondary)', (els) => els.map((e: any) => e.textContent.trim()))).toEqual(['See the results']);
    expect(await page.$$eval('main button', (bs) => bs.map((b: any) => b.textContent.trim()))).toEqual(['Stop', 'Copy SDK code', 'Copy HTTP requests']);
    // The code to use it, with its name and this server's address filled in.
    expect(await text(page, 'pre[aria-label="SDK code"]')).toContain('const variant = tally.getVariant("Checkout button", "control");');
    expect(await text(page, 'pre[aria-label="HTTP requests"]')).toContain(`'${env.stack.url}/v1/experiments?user_id=USER_ID'`);
    await env.dash.screenshot('experiment-running');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems, 400, 404, 409)).toEqual([]);
  });

  it('refreshes and reads the results: tables, verdict, both charts and the query', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await page.waitForSelector('::-p-text(Not computed yet)', { timeout: 10_000 });
    await env.dash.screenshot('results-not-computed');

    // 40 users per variant; control converts 6, green 20.
    const events: unknown[] = [];
    for (let i = 0; i < 40; i++) {
      events.push(exposure(`c${i}`, 'Checkout button', 'control', t0 + 1));
      events.push(exposure(`g${i}`, 'checkout_button', 'green', t0 + 1));
      if (i < 6) events.push({ name: 'purchase', user_id: `c${i}`, timestamp: t0 + 2 });
      if (i < 20) events.push({ name: 'purchase', user_id: `g${i}`, timestamp: t0 + 2 });
    }
    events.push(exposure('both', 'Checkout button', 'control', t0 + 3), exposure('both', 'Checkout button', 'green', t0 + 4));
    await send(events);

    await refreshResults(page);
    await page.waitForSelector('table[data-table="variants"]', { timeout: 10_000 });
    const api = (await env.stack.admin('GET', `${base()}/${experimentId}/results`)).body;
    expect(await tableRows(page, 'variants')).toEqual([
      ['control (control)', '41', '6', '14.6%'],
      ['green', '40', '20', '50%'],
    ]);
    // The experiment's own analysis (sequential, Holm by default): the primary metric's row of the
    // metrics table, the verdict and the chart state its figures, not the fixed-horizon comparison.
    const primary = api.metrics[0].comparisons[0];
    expect(api.metrics[0]).toMatchObject({ name: 'purchase', role: 'primary' });
    const [row] = await tableRows(page, 'metrics');
    expect(row!.slice(0, 2)).toEqual(['purchase (conversion, primary)', 'green']);
    expect(row![5]).toBe(formatPValue(primary.p_value));
    expect(row![6]).toBe(formatPValue(primary.adjusted_p_value));
    expect(row![7]).toContain(formatInterval(primary.relative_ci_low, primary.relative_ci_high, formatRelative));
    expect(row![8]).toBe(formatPValue(primary.relative_p_value));
    expect(primary.ci_high - primary.ci_low).toBeGreaterThan(api.comparisons[0].ci_high - api.comparisons[0].ci_low); // sequential: wider
    // 40 users a side are few for an always-valid test: the fixed-horizon p < 0.001 the page used to
    // state is 0.49 in the experiment's own analysis, and the verdict says so.
    expect(api.comparisons[0].p_value).toBeLessThan(0.001);
    expect(formatPValue(primary.adjusted_p_value)).toBe('0.49');
    expect(await text(page, '.verdicts')).toBe(
      'No significant difference yet between green and control: 50% of 40 users against 14.6% of 41 users (sequential test, Holm-adjusted p = 0.49).',
    );
    expect(await page.$('table[data-table="comparisons"]')).toBeNull();
    expect(await text(page, 'main')).toContain('Multiple exposures: 1 user was exposed');
    expect(await page.$('.srm-warning')).toBeNull();

    const intervals = await chartInfo(page, 'intervals');
    expect(intervals.width).toBeGreaterThan(300);
    expect(intervals.height).toBeGreaterThan(100);
    const series = await chartInfo(page, 'series');
    expect(series.width).toBeGreaterThan(300);
    expect(series.legend).toEqual(['control', 'green']); // one entry per variant, names only

    // "How this was computed": the rules, the methods and the exact query the API reports.
    const panel = await text(page, '.how-computed');
    for (const words of [
      'first',
      'identity links',
      'sequential, always valid',
      'tuning parameter 5000',
      'Holm, across the 1 comparison of every variant',
      'delta method',
      'chi-square',
    ]) {
      expect(panel).toContain(words);
    }
    expect(api.computation.engine).toBe('duckdb');
    expect(await page.$eval('.query-text code', (c: any) => c.textContent)).toBe(api.computation.query);
    await env.browser.defaultBrowserContext().overridePermissions(env.stack.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    await clickButton(page, 'Copy query');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.copy-status').textContent !== '', { timeout: 5000 });
    expect(await text(page, '.copy-status')).toBe('Copied.');
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(api.computation.query);
    await env.dash.screenshot('results');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems, 400, 404, 409)).toEqual([]);
  });

  it('stops after a confirmation; the summary says it is final and the results freeze', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}`);
    await clickButton(page, 'Stop');
    await page.waitForSelector('dialog[open]');
    expect(await text(page, 'dialog[open]')).toContain('Stopping is final');
    await clickButton(page, 'Yes, stop it');
    await page.waitForSelector('.status-badge.status-stopped');
    expect(await page.$('form')).toBeNull();
    expect(await page.$$eval('main button', (bs) => bs.map((b: any) => b.textContent.trim()))).toEqual([]);
    expect(await text(page, 'dl.experiment-facts')).toContain('Stopped');
    expect(await text(page, 'main')).toContain('To run it again, create a new experiment.');
    await env.dash.screenshot('experiment-stopped');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Events after the stop change nothing.
    await send([exposure('late', 'Checkout button', 'control', Date.now() + 5), { name: 'purchase', user_id: 'late', timestamp: Date.now() + 6 }]);
    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await refreshResults(page);
    await page.waitForSelector('::-p-text(these results are final)');
    expect((await tableRows(page, 'variants')).map((r) => r.slice(1, 3))).toEqual([
      ['41', '6'],
      ['40', '20'],
    ]);
    const final = (await env.stack.admin('GET', `${base()}/${experimentId}/results`)).body.metrics[0].comparisons[0];
    expect(await text(page, '.verdicts')).toContain(
      `50% of 40 users against 14.6% of 41 users (${decisionStatement({ sequential: true, correction: 'holm' }, final.adjusted_p_value)}).`,
    );
    expect(problemsApartFrom(env.dash.problems, 400, 404, 409)).toEqual([]);
  });

  it('warns prominently about a sample ratio mismatch, and shows a started experiment with no one enrolled', async () => {
    const { page } = env.dash;
    srmId = (await env.stack.admin('POST', base(), { name: 'Skewed split', goal_event: 'purchase', variants: ['a', 'b'] })).body.id;
    const started = Date.parse((await env.stack.admin('POST', `${base()}/${srmId}/start`)).body.started_at);
    const events: unknown[] = [];
    for (let i = 0; i < 40; i++) events.push(exposure(`sa${i}`, 'Skewed split', 'a', started + 1));
    for (let i = 0; i < 5; i++) events.push(exposure(`sb${i}`, 'Skewed split', 'b', started + 1));
    await send(events);
    await env.dash.go(`/projects/${env.project}/experiments/${srmId}/results`);
    await refreshResults(page);
    await page.waitForSelector('[role="alert"].srm-warning');
    expect(await text(page, '.srm-warning')).toContain('Sample ratio mismatch');
    expect(await text(page, '.srm-warning')).toContain('40 / 5');
    expect(await text(page, '.srm-warning')).toContain('p < 0.001');
    // No one converted in either: nothing to test, and the verdict says so (not "not enough data").
    expect(await text(page, '.verdicts')).toContain(
      'No difference between b and a yet: no user of either sent purchase (0% of 5 users against 0% of 40 users), so there is no variation to test and no p-value.',
    );
    expect(await page.$('.srm-passed')).toBeNull();
    await env.dash.screenshot('results-srm');
    expect(await seriousA11yViolations(page)).toEqual([]);

    const emptyId = (await env.stack.admin('POST', base(), { name: 'Nobody yet', goal_event: 'purchase' })).body.id;
    await env.stack.admin('POST', `${base()}/${emptyId}/start`);
    await env.dash.go(`/projects/${env.project}/experiments/${emptyId}/results`);
    await refreshResults(page);
    await page.waitForSelector('::-p-text(No one is enrolled yet)');
    expect(await tableRows(page, 'variants')).toEqual([
      ['a (control)', '0', '0', '—'],
      ['b', '0', '0', '—'],
    ]);
    await env.dash.screenshot('results-no-enrollments');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await env.dash.go(`/projects/${env.project}/experiments`);
    await page.waitForSelector('.experiments-table');
    expect(await page.$$eval('.experiments-table .status-badge', (b) => b.map((x: any) => x.textContent).sort())).toEqual([
      'created',
      'running',
      'running',
      'stopped',
    ]);
    // At a glance, from the stored results: enrolled, the lift against control, the split's health.
    const rows = Object.fromEntries(
      (
        await page.$$eval('.experiments-table tbody tr', (trs) =>
          trs.map((tr: any) => [...tr.cells].slice(0, 6).map((c: any) => c.innerText.replace(/\s+/g, ' ').trim())),
        )
      ).map((r) => [r[0], r.slice(1)]),
    );
    // The list states the results page's analysis: the primary metric's relative difference with its
    // own interval, and the decision with the adjusted p-value the verdict rests on.
    const checkout = (await env.stack.admin('GET', `${base()}/${experimentId}/results`)).body.metrics[0].comparisons[0];
    const word = checkout.adjusted_p_value < 0.05 ? 'better' : 'no significant difference';
    expect(rows['Checkout button']).toEqual([
      'stopped',
      'purchase',
      '81',
      `green ${formatRelative(checkout.relative_difference)} ${formatInterval(checkout.relative_ci_low, checkout.relative_ci_high, formatRelative)} ${word} (${decisionStatement({ sequential: true, correction: 'holm' }, checkout.adjusted_p_value)})`,
      'Healthy split',
    ]);
    expect(rows['Skewed split']).toEqual(['running', 'purchase', '45', 'b: not enough data', 'Sample ratio mismatch']);
    expect(rows['Nobody yet']).toEqual(['running', 'purchase', '0', 'b: not enough data', 'No one enrolled yet']);
    expect(rows['Taken name']).toEqual(['created', 'purchase', 'Not started', 'Not started', '—']);
    await env.dash.screenshot('experiments');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems, 400, 404, 409)).toEqual([]);
  });

  it('draws one line per variant over the days of a longer run', async () => {
    const { page } = env.dash;
    const day = 86_400_000;
    clockOffsetMs = -3 * day; // start three days ago
    const id = (await env.stack.admin('POST', base(), { name: 'Three days', goal_event: 'purchase', variants: ['a', 'b', 'c'] })).body.id;
    seriesId = id;
    const started = Date.parse((await env.stack.admin('POST', `${base()}/${id}/start`)).body.started_at);
    clockOffsetMs = 0;
    const events: unknown[] = [];
    for (let d = 0; d < 4; d++) {
      for (let i = 0; i < 10; i++) {
        for (const v of ['a', 'b', 'c']) {
          const user = `${v}${d}-${i}`;
          // Day d of the run (a little under d days after the start, so the last day's events are not in the future).
          const at = started + d * (day - 120_000) + 1000;
          events.push(exposure(user, 'Three days', v, at));
          if (i < (v === 'a' ? 2 : v === 'b' ? 4 : 6)) events.push({ name: 'purchase', user_id: user, timestamp: at + 1000 });
        }
      }
    }
    await send(events);
    await env.dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await refreshResults(page);
    await page.waitForSelector('[data-chart="series"] canvas');
    const api = (await env.stack.admin('GET', `${base()}/${id}/results`)).body;
    expect(api.series.length).toBe(4);
    const chart = await chartInfo(page, 'series');
    expect(chart.legend).toEqual(['a', 'b', 'c']);
    expect(chart.width).toBeGreaterThan(300);
    // The text alternative has one row per day, one column per variant.
    const rows = await page.$$eval('[data-chart="series"] ~ details tbody tr', (trs) => trs.map((tr: any) => tr.cells.length));
    expect(rows).toEqual([4, 4, 4, 4]);
    await env.dash.screenshot('results-series');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems, 400, 404, 409)).toEqual([]);
  });

  it('works at 375 px: no sideways scrolling, charts fit, no accessibility violations', async () => {
    const small = await openDashboard(env.browser, env.stack.url, { width: 375 });
    const { page } = small;
    const pages: Array<[string, string, string]> = [
      ['experiments', `/projects/${env.project}/experiments`, '.experiments-table'],
      ['experiment-new', `/projects/${env.project}/experiments/new`, '#experiment-name'],
      ['experiment-stopped', `/projects/${env.project}/experiments/${experimentId}`, '.status-badge.status-stopped'],
      ['results', `/projects/${env.project}/experiments/${experimentId}/results`, '[data-chart="series"] canvas'],
      ['results-srm', `/projects/${env.project}/experiments/${srmId}/results`, '.srm-warning'],
      ['results-series', `/projects/${env.project}/experiments/${seriesId}/results`, '[data-chart="series"] canvas'],
    ];
    for (const [name, route, ready] of pages) {
      await small.go(route);
      await page.waitForSelector(ready);
      const overflow = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth);
      // Nothing reaches past the screen's edge, the results tables included (their rows become cards):
      // only the query's code block scrolls in its own frame (and the tables' headings, clipped to nothing for screen readers).
      const wide = await page.evaluate(() =>
        [...(globalThis as any).document.querySelectorAll('body *')]
          .filter((e: any) => e.getBoundingClientRect().right > 376 && !e.closest('.query-text, table.stack thead, .results-table thead'))
          .slice(0, 5)
          .map((e: any) => `${e.tagName}.${e.className}`),
      );
      expect([overflow, wide], name).toEqual([375, []]);
      const hiddenWrap = await page.$$eval('.table-wrap', (ws) => ws.filter((w: any) => w.scrollWidth > w.clientWidth).length);
      expect(hiddenWrap, `${name}: a table scrolls sideways`).toBe(0);
      expect(await seriousA11yViolations(page), name).toEqual([]);
      await small.screenshot(name);
    }
    // The results page at 375 px shows each metric's figures as labelled lines on screen.
    await small.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await page.waitForSelector('table[data-table="metrics"]');
    const cells = await page.$$eval('table[data-table="metrics"] tbody td', (tds) =>
      tds.map((td: any) => ({
        label: td.dataset.label,
        shown: (globalThis as any).getComputedStyle(td, '::before').content,
        text: td.innerText.replace(/\s+/g, ' ').trim(),
        right: td.getBoundingClientRect().right,
      })),
    );
    expect(cells.map((c) => c.label)).toEqual([
      'Variant',
      'Control mean',
      'Variant mean',
      'Difference (95% interval)',
      'p-value',
      'Adjusted p-value (Holm)',
      'Relative difference (95% interval)',
      'p-value (relative)',
    ]);
    expect(cells.find((c) => c.label === 'Difference (95% interval)')!.text).toMatch(/^\+[\d.]+ pp [−+][\d.]+ pp to \+[\d.]+ pp$/);
    for (const c of cells) {
      expect(c.shown, c.label).toBe(JSON.stringify(c.label)); // the label is on screen beside the number
      expect(c.right, c.label).toBeLessThanOrEqual(375);
    }
    await small.screenshot('results-cards');
    const series = await chartInfo(page, 'intervals');
    expect(series.width).toBeGreaterThan(200);
    expect(series.width).toBeLessThanOrEqual(375);
    expect(problemsApartFrom(small.problems, 400, 404)).toEqual([]);
  });
});
