/**
 * The results page's breakdowns (issue 22, "Breakdowns"), in real Chromium against the local server:
 * exposures and goal events over HTTP with the platform and app version each carries, the results
 * computed by Refresh (the real results job), then "Breakdown by": the segments a user reads (the top
 * values, "Other values", "Unknown") with enrolled users, conversion, the relative difference and the
 * adjusted p-value beside the raw one; a hostile platform value rendered as text; switching the
 * dimension (kept across Refresh); the plain empty states (no one enrolled, results from before breakdowns); axe; 375 px
 * without sideways scrolling. Screenshots in test-output/dashboard/results-breakdowns-*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { formatMeanWithError, formatMetricDifference } from '../../dashboard/src/results/format-metric';
import { formatInterval, formatPValue, formatRelative } from '../../dashboard/src/results/format-stats';
import { describeBrowser } from '../helpers/browser';
import { openDashboard, problemsApartFrom, refreshResults, SCREENSHOT_DIR, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
/** Each row's cells as read: a segment's header row is one cell, a variant's row seven. */
/** The breakdown table's columns after the variant's name: counts, then each interval beside its own p-value. */
const COLUMNS = [
  'Enrolled',
  'Converted',
  'Conversion rate',
  'Difference (95% interval)',
  'p-value',
  'Adjusted p-value (Holm)',
  'Relative difference (95% interval)',
  'p-value (relative)',
];
const tableRows = (page: Page) =>
  page.$$eval('table[data-table="breakdown"] tbody tr', (rows) => rows.map((r) => [...(r as any).cells].map((c: any) => c.innerText.trim())));
const segmentNames = async (page: Page) => (await tableRows(page)).filter((r) => r.length === 1).map((r) => r[0]);

/** The section alone (the full page is long): test-output/dashboard/<name>.png. */
async function sectionScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await (await page.$('.breakdowns'))!.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`) });
}

const HOSTILE = '<img src=x onerror="globalThis.__pwned=1">';

/** [platform (undefined: none sent), app version, control users, control converted, treatment users, treatment converted] */
const GROUPS: Array<[string | undefined, string | undefined, number, number, number, number]> = [
  ['ios', '3.1.0', 60, 12, 60, 24],
  ['android', '3.0.0', 40, 10, 40, 12],
  [HOSTILE, undefined, 5, 1, 5, 2],
  ['web', '3.0.0', 2, 1, 2, 1],
  ['macos', '3.0.0', 1, 0, 1, 1],
  // windows and linux: beyond the top 5 (windows ties macos at 2 users and loses by name), summed into "Other values".
  ['windows', '3.0.0', 1, 1, 1, 0],
  ['linux', '3.0.0', 1, 0, 0, 0],
  [undefined, undefined, 10, 2, 10, 5],
];

describeBrowser('dashboard: the results page breaks the primary metric down by platform, country and app version (issue 22)', () => {
  const env = useDashboardProject('dashboard breakdowns');
  const base = () => `/admin/v1/projects/${env.project}/experiments`;
  const send = async (events: unknown[]) => expect((await env.stack.post('/v1/events', env.key, { events })).status).toBe(204);
  let experimentId = '';

  async function startExperiment(name: string): Promise<{ id: string; started: number }> {
    const id = (await env.stack.admin('POST', base(), { name, goal_event: 'purchase', variants: ['control', 'treatment'] })).body.id as string;
    const started = Date.parse((await env.stack.admin('POST', `${base()}/${id}/start`)).body.started_at);
    return { id, started };
  }

  it('shows each platform’s users, conversion, relative difference and adjusted p-value, values as text, and switches dimension', async () => {
    const { page } = env.dash;
    const { id, started } = await startExperiment('Checkout breakdowns');
    experimentId = id;
    const events: unknown[] = [];
    GROUPS.forEach(([platform, appVersion, ...counts], g) => {
      for (const [variant, users, converted] of [
        ['control', counts[0], counts[1]],
        ['treatment', counts[2], counts[3]],
      ] as const) {
        for (let i = 0; i < users; i++) {
          const user = `u${g}-${variant}-${i}`;
          const sent = { ...(platform === undefined ? {} : { platform }), ...(appVersion === undefined ? {} : { app_version: appVersion }) };
          events.push({
            name: '$experiment_exposure',
            user_id: user,
            timestamp: new Date(started + 1).toISOString(),
            properties: { $experiment_name: 'Checkout breakdowns', $variant: variant },
            ...sent,
          });
          if (i < converted) events.push({ name: 'purchase', user_id: user, timestamp: new Date(started + 2).toISOString(), ...sent });
        }
      }
    });
    await send(events);
    await env.dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await refreshResults(page);
    await page.waitForSelector('#breakdown-by');
    // None at first: the select only.
    expect(await page.$eval('#breakdown-by', (el) => (el as any).value)).toBe('');
    expect(await page.$$eval('#breakdown-by option', (o) => o.map((x: any) => x.textContent))).toEqual(['None', 'Platform', 'Country', 'App version']);
    expect(await page.$('table[data-table="breakdown"]')).toBeNull();

    await page.select('#breakdown-by', 'platform');
    await page.waitForSelector('table[data-table="breakdown"]');
    const api = (await env.stack.admin('GET', `${base()}/${id}/results`)).body;
    const platform = api.breakdowns.find((b: any) => b.dimension === 'platform');
    expect(await segmentNames(page)).toEqual([
      'ios',
      'android',
      HOSTILE,
      'web',
      'macos',
      'Other values (every value beyond the top 5, summed)',
      'Unknown (no platform on the enrollment event)',
    ]);
    const rows = await tableRows(page);
    // ios: its header, control, treatment.
    const ios = platform.segments[0];
    const iosTreatment = ios.comparisons[0];
    expect(rows[1]).toEqual([
      'control (control)',
      '60',
      '12',
      formatMeanWithError('conversion', ios.variants[0].mean, ios.variants[0].std_error),
      '',
      '',
      '',
      '',
      '',
    ]);
    expect(rows[1]![3]).toMatch(/^20% ± 5\.\d pp$/);
    expect(rows[2]).toEqual([
      'treatment',
      '60',
      '24',
      formatMeanWithError('conversion', ios.variants[1].mean, ios.variants[1].std_error),
      `${formatMetricDifference('conversion', iosTreatment.difference)}\n${formatInterval(iosTreatment.ci_low, iosTreatment.ci_high, (x) => formatMetricDifference('conversion', x))}`,
      formatPValue(iosTreatment.p_value),
      formatPValue(iosTreatment.adjusted_p_value),
      `+100%\n${formatInterval(iosTreatment.relative_ci_low, iosTreatment.relative_ci_high, formatRelative)}`,
      formatPValue(iosTreatment.relative_p_value),
    ]);
    expect(rows[2]![3]).toMatch(/^40% ± 6\.\d pp$/);
    // Holm across the platform's segments: the adjusted p-value is above the raw one, both shown.
    expect(iosTreatment.adjusted_p_value).toBeGreaterThan(iosTreatment.p_value);
    expect(rows[2]![6]).not.toBe(rows[2]![5]);
    // Other values: windows (1 + 1 users) and linux (1 control user) summed.
    const otherAt = rows.findIndex((r) => r[0]!.startsWith('Other values'));
    expect(rows.slice(otherAt + 1, otherAt + 3).map((r) => r.slice(0, 3))).toEqual([
      ['control (control)', '2', '1'],
      ['treatment', '1', '0'],
    ]);
    const unknownAt = rows.findIndex((r) => r[0]!.startsWith('Unknown'));
    expect(rows.slice(unknownAt + 1).map((r) => r.slice(0, 4))).toEqual([
      ['control (control)', '10', '2', formatMeanWithError('conversion', 0.2, platform.segments[6].variants[0].std_error)],
      ['treatment', '10', '5', formatMeanWithError('conversion', 0.5, platform.segments[6].variants[1].std_error)],
    ]);
    expect(await page.$$eval('table[data-table="breakdown"] thead th', (t) => t.map((x: any) => x.innerText))).toEqual(['Variant', ...COLUMNS]);
    // The client's value is text: no element made of it, the page's script untouched.
    expect(await page.$('table[data-table="breakdown"] img')).toBeNull();
    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
    const basis = await text(page, '.breakdown-basis');
    expect(basis).toContain('The primary metric, purchase (the share of enrolled users who sent it at or after enrolling), per platform');
    expect(basis).toContain('corrected with Holm across every variant in every platform segment below');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await env.dash.screenshot('results-breakdowns-platform');
    await sectionScreenshot(page, 'results-breakdowns-section-1280');

    // Refresh keeps the choice (the page's state; the section stays while the results are read again).
    await refreshResults(page);
    expect(await page.$eval('#breakdown-by', (el) => (el as any).value)).toBe('platform');
    expect(await segmentNames(page)).toHaveLength(7);

    await page.select('#breakdown-by', 'app_version');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.breakdown-basis')?.innerText.includes('per app version'));
    expect(await segmentNames(page)).toEqual(['3.1.0', '3.0.0', 'Unknown (no app version on the enrollment event)']);
    expect((await tableRows(page)).filter((r) => r.length > 1).map((r) => r[1])).toEqual(['60', '60', '45', '44', '15', '15']);

    // The local server has no country for 127.0.0.1: every user is Unknown.
    await page.select('#breakdown-by', 'country');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.breakdown-basis')?.innerText.includes('per country'));
    expect(await segmentNames(page)).toEqual(['Unknown (no country on the enrollment event)']);

    await page.select('#breakdown-by', '');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('table[data-table="breakdown"]') === null);
    expect(problemsApartFrom(env.dash.problems, 404, 409)).toEqual([]);
  });

  it('fits 375 px: each variant a card under its segment, no sideways scrolling', async () => {
    const small = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await small.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await small.page.waitForSelector('#breakdown-by');
    await small.page.select('#breakdown-by', 'platform');
    await small.page.waitForSelector('table[data-table="breakdown"]');
    expect(await small.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    // The control's card has no empty comparison lines; the treatment's shows every label.
    const cardLabels = await small.page.$$eval('table[data-table="breakdown"] tbody:first-of-type tr', (rows) =>
      rows.map((r) => [...(r as any).querySelectorAll('td')].filter((c: any) => c.offsetParent !== null).map((c: any) => c.dataset.label)),
    );
    expect(cardLabels).toEqual([[], COLUMNS.slice(0, 3), COLUMNS]);
    expect(await seriousA11yViolations(small.page)).toEqual([]);
    await small.screenshot('results-breakdowns-platform');
    await sectionScreenshot(small.page, 'results-breakdowns-section-375');
    expect(problemsApartFrom(small.problems, 404, 409)).toEqual([]);
    await small.page.close();
  });

  it('says plainly when there is nothing to break down: no one enrolled, or results from before breakdowns', async () => {
    const { page } = env.dash;
    const { id } = await startExperiment('Nobody yet');
    await env.dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await refreshResults(page);
    await page.waitForSelector('.breakdowns');
    expect(await text(page, '.breakdowns .empty-state')).toBe(
      'No one is enrolled yet, so there is nothing to break down: the breakdowns appear once users enroll.',
    );
    expect(await page.$('#breakdown-by')).toBeNull();

    // Results stored before breakdowns existed: the same results without the field.
    const stored = (await env.stack.admin('GET', `${base()}/${experimentId}/results`)).body;
    delete stored.breakdowns;
    await env.stack.deps.results.put(env.project, stored);
    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.breakdowns')?.innerText.includes('before breakdowns existed'));
    expect(await text(page, '.breakdowns .empty-state')).toBe(
      'These results were computed before breakdowns existed, so they have none. Press Refresh to compute them again with the breakdowns.',
    );
    expect(await page.$('#breakdown-by')).toBeNull();
    await env.dash.screenshot('results-breakdowns-none');
    expect(problemsApartFrom(env.dash.problems, 404, 409)).toEqual([]);
  });
});
