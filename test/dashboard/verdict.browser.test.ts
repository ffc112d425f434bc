/**
 * The results page's decision defects of issue 22, in real Chromium against the local server, each as
 * a new user met it: a relative interval below −100% with 13 users, "Not enough data" where both
 * variants at 100% leave nothing to test, a sample-ratio check said only when it fails, "these
 * results are final" right after Stop over a window that ended before it, a one-day series with a
 * legend of placeholders, and a verdict that did not say what it rests on. Screenshots in
 * test-output/dashboard/results-verdict-*.png.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { formatPStatement, formatRelative } from '../../dashboard/src/results/format-stats';
import { describeBrowser } from '../helpers/browser';
import { clickButton, problemsApartFrom, refreshResults, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const tableRows = (page: Page, name: string) =>
  page.$$eval(`table[data-table="${name}"] tbody tr`, (rows) => rows.map((r) => [...(r as any).cells].map((c: any) => c.innerText.trim())));

describeBrowser('dashboard: the results page decides honestly (issue 22)', () => {
  const env = useDashboardProject('dashboard verdict');
  const base = () => `/admin/v1/projects/${env.project}/experiments`;
  const send = async (events: unknown[]) => expect((await env.stack.post('/v1/events', env.key, { events })).status).toBe(204);

  /** A started experiment with `converted` of `enrolled` users per variant, all events a few ms after the start. */
  async function experimentWith(name: string, groups: Array<[variant: string, converted: number, enrolled: number]>): Promise<string> {
    const id = (await env.stack.admin('POST', base(), { name, goal_event: 'purchase', variants: groups.map(([v]) => v) })).body.id as string;
    const started = Date.parse((await env.stack.admin('POST', `${base()}/${id}/start`)).body.started_at);
    const events: unknown[] = [];
    for (const [variant, converted, enrolled] of groups) {
      for (let i = 0; i < enrolled; i++) {
        const user = `${id}-${variant}-${i}`;
        events.push({
          name: '$experiment_exposure',
          user_id: user,
          timestamp: new Date(started + 1).toISOString(),
          properties: { $experiment_name: name, $variant: variant },
        });
        if (i < converted) events.push({ name: 'purchase', user_id: user, timestamp: new Date(started + 2).toISOString() });
      }
    }
    await send(events);
    return id;
  }

  it('13 users: the relative interval stops at −100% in the API and on the page, which says why', async () => {
    const { page } = env.dash;
    // gbstats' delta method gives −384.9% to +684.9% for 4 of 8 against 1 of 5.
    const id = await experimentWith('Thirteen users', [
      ['control', 1, 5],
      ['treatment', 4, 8],
    ]);
    await env.dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await refreshResults(page);
    await page.waitForSelector('table[data-table="metrics"]');
    const api = (await env.stack.admin('GET', `${base()}/${id}/results`)).body;
    const primary = api.metrics[0].comparisons[0];
    // The fixed-horizon field kept for older clients and the experiment's own (sequential) analysis both stop at −100%.
    expect(api.comparisons[0].relative_ci_low).toBe(-1);
    expect(api.comparisons[0].relative_ci_high).toBeCloseTo(6.849145439979014, 9);
    expect(primary.relative_ci_low).toBe(-1);
    const [row] = await tableRows(page, 'metrics');
    expect(row![7]).toBe(`+150%\n\u2212100% to ${formatRelative(primary.relative_ci_high)}`);
    expect(await text(page, '.floor-note')).toContain('cannot fall below zero');
    // The sample-ratio check passed: said, with its p-value.
    expect(await text(page, '.srm-passed')).toBe(
      `Sample ratio check passed. The variants enrolled 5 / 8 users, consistent with the split the assignment aims for (chi-square test, ${formatPStatement(api.srm.p_value)}; it fails below p = 0.001).`,
    );
    expect(await page.$('.srm-warning')).toBeNull();
    // The verdict names the primary metric and the figures it rests on.
    expect(await text(page, '.verdict-basis')).toContain('the share of enrolled users who sent purchase at or after enrolling');
    expect(await text(page, '.verdicts')).toBe(
      `No significant difference yet between treatment and control: 50% of 8 users against 20% of 5 users (sequential test, Holm-adjusted ${formatPStatement(primary.adjusted_p_value)}).`,
    );
    await env.dash.screenshot('results-verdict-floor');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems, 404, 409)).toEqual([]);
  });

  it('both variants at 100%: the verdict says there is nothing to test, and no figure says otherwise', async () => {
    const { page } = env.dash;
    const id = await experimentWith('Everyone buys', [
      ['control', 1, 1],
      ['treatment', 4, 4],
    ]);
    await env.dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await refreshResults(page);
    await page.waitForSelector('table[data-table="metrics"]');
    const verdict = await text(page, '.verdicts');
    expect(verdict).not.toContain('Not enough data');
    expect(verdict).toBe(
      'No difference between treatment and control yet: every user of both sent purchase (100% of 4 users against 100% of 1 user), so there is no variation to test and no p-value.',
    );
    const [row] = await tableRows(page, 'metrics');
    expect(row![5]).toBe('—');
    expect(row![8]).toBe('—');
    // No chance to beat control stated: it was another analysis than the experiment's (only "How this
    // was computed" names it, among the older API fields).
    const stated = await page.$$eval('main table, .verdicts, .results-figure', (els) => els.map((e: any) => e.innerText).join('\n'));
    expect(stated.toLowerCase()).not.toContain('chance to beat');
    await env.dash.screenshot('results-verdict-all-converted');
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('a one-day run: one point per variant, a legend of names without placeholders, and after Stop "finishing" until the results reach the stop', async () => {
    const { page } = env.dash;
    const id = await experimentWith('One day', [
      ['control', 3, 10],
      ['treatment', 5, 10],
    ]);
    await env.dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await refreshResults(page);
    await page.waitForSelector('[data-chart="series"] canvas');
    // Each entry of the legend is a variant's name, nothing else (a live legend showed "Day (UTC) —, control —, treatment —").
    const legend = await page.$$eval('[data-chart="series"] .u-legend .u-series', (entries) => entries.map((e: any) => e.innerText.trim()));
    expect(legend).toEqual(['control', 'treatment']);
    expect(await text(page, '.results-figure figcaption')).not.toContain('one hour so far'); // the interval chart's caption
    expect(await page.$$eval('figcaption', (c) => c.map((x: any) => x.innerText).join('\n'))).toContain('one hour so far');
    await env.dash.screenshot('results-verdict-one-day');

    // Stop: the stored results were computed before it, so they are not final yet.
    await env.dash.go(`/projects/${env.project}/experiments/${id}`);
    await clickButton(page, 'Stop');
    await page.waitForSelector('dialog[open]');
    await clickButton(page, 'Yes, stop it');
    await page.waitForSelector('.status-badge.status-stopped');
    const stoppedAt = (await env.stack.admin('GET', `${base()}/${id}`)).body.stopped_at as string;
    await env.dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await page.waitForSelector('.finishing');
    expect(await text(page, 'main')).not.toContain('final)');
    expect(await text(page, '.finishing')).toContain(`stopped ${stoppedAt.slice(0, 10)} ${stoppedAt.slice(11, 19)} UTC`);
    await env.dash.screenshot('results-verdict-finishing');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The computation over the whole run makes them final.
    await refreshResults(page);
    await page.waitForSelector('::-p-text(these results are final)');
    expect(await page.$('.finishing')).toBeNull();
    await env.dash.screenshot('results-verdict-final');
    expect(problemsApartFrom(env.dash.problems, 404, 409)).toEqual([]);
  });
});
