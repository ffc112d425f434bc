/**
 * CUPED in the dashboard (docs/decisions/cuped.md), in real Chromium against the local server: the
 * form's switch (on by default) and its window in days, checked before sending and saved; and the
 * results page showing each metric's variance reduction and what it is worth ("like 1.6× the users"),
 * the metrics' basis and "How this was computed" naming the covariate window. Results are seeded
 * through the real results store in the shape the results job writes (metric-results.ts with the
 * covariate sums). Screenshots in test-output/dashboard/cuped-*.png.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { metricResults, type MetricInput } from '../../lambdas/domain/metric-results';
import { describeBrowser } from '../helpers/browser';
import { seededResults } from '../helpers/seeded-results';
import { clickButton, problemsApartFrom, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const tableRows = (page: Page, name: string) =>
  page.$$eval(`table[data-table="${name}"] tbody tr`, (rows) => rows.map((r) => [...(r as any).cells].map((c: any) => c.innerText.trim())));

describeBrowser('dashboard: CUPED', () => {
  const env = useDashboardProject('dashboard cuped');
  const base = () => `/admin/v1/projects/${env.project}/experiments`;
  let experimentId = '';

  it('sets CUPED in the form: on with 14 days by default, the window checked before sending, saved', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/new`);
    await page.waitForSelector('#experiment-name');
    await page.type('#experiment-name', 'Onboarding CUPED');
    await page.type('#experiment-goal', 'purchase');
    expect(await page.$eval('input[name="cuped"]', (el) => (el as any).checked)).toBe(true);
    expect(await page.$eval('#experiment-cuped-days', (el) => (el as any).value)).toBe('14');
    await page.click('#experiment-cuped-days', { count: 3 });
    await page.keyboard.type('90');
    await clickButton(page, 'Save');
    await page.waitForSelector('#experiment-cuped-days-error');
    expect(await text(page, '#experiment-cuped-days-error')).toBe('Enter a whole number of days from 1 to 60 (14 is the default).');
    await page.click('#experiment-cuped-days', { count: 3 });
    await page.keyboard.type('21');
    await Promise.all([page.waitForFunction(() => (globalThis as any).location.hash.match(/experiments\/[0-9a-f-]{36}$/)), clickButton(page, 'Save')]);
    experimentId = (await page.evaluate(() => (globalThis as any).location.hash as string)).split('/').pop()!;
    expect((await env.stack.admin('GET', `${base()}/${experimentId}`)).body).toMatchObject({ cuped: true, cuped_lookback_days: 21 });
    expect(problemsApartFrom(env.dash.problems, 400)).toEqual([]);
  });

  it('shows each metric’s variance reduction and what it is worth, and names the covariate window', async () => {
    const { page } = env.dash;
    const started = await env.stack.admin('POST', `${base()}/${experimentId}/start`);
    expect(started.status).toBe(200);
    const window = { from: started.body.started_at, to: new Date(Date.parse(started.body.started_at) + 60_000).toISOString() };
    const counts = [
      { variant: 'a', enrolled: 1000, converted: 100 },
      { variant: 'b', enrolled: 1000, converted: 130 },
    ];
    // Page views per user: y = x + noise, so that 1 − adjusted/unadjusted variance is about 0.6;
    // the goal's conversion with a weaker covariate.
    const metrics: MetricInput[] = [
      {
        name: 'purchase',
        kind: 'conversion',
        role: 'primary',
        variants: [
          { variant: 'a', sums: { users: 1000, sum: 100, sum_squares: 100, covariate: { sum: 120, sum_squares: 120, sum_products: 40 } } },
          { variant: 'b', sums: { users: 1000, sum: 130, sum_squares: 130, covariate: { sum: 118, sum_squares: 118, sum_products: 45 } } },
        ],
      },
      {
        name: 'Page views',
        kind: 'count',
        role: 'secondary',
        variants: [
          { variant: 'a', sums: { users: 1000, sum: 3000, sum_squares: 14_000, covariate: { sum: 2900, sum_squares: 11_500, sum_products: 12_300 } } },
          { variant: 'b', sums: { users: 1000, sum: 3200, sum_squares: 15_500, covariate: { sum: 2950, sum_squares: 11_800, sum_products: 12_900 } } },
        ],
      },
    ];
    const computed = metricResults(metrics, { correction: 'holm' });
    const views = computed[1]!;
    expect(views.cuped).toBe(true);
    const r = views.variance_reduction!;
    await env.stack.deps.results.put(env.project, seededResults(experimentId, window, counts, { metrics: computed, guardrail_breached: false }));

    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await page.waitForSelector('table[data-table="metrics"]');
    const rows = await tableRows(page, 'metrics');
    const percent = Number((r * 100).toFixed(1));
    expect(rows[1]![0]).toBe(`Page views (count per user)\nCUPED: variance −${percent}% (like ${(1 / (1 - r)).toFixed(1)}× the users)`);
    expect(rows[0]![0]).toMatch(/^purchase \(conversion, primary\)\nCUPED: variance −\d+(\.\d)?% \(like 1\.\d× the users\)$/);
    expect(await text(page, '.metrics-basis')).toContain(
      "CUPED is on: each comparison is adjusted by every user's own value of the metric in the 21 days before their first exposure",
    );
    expect(await text(page, '.how-computed')).toContain(
      "each user's own value of the same metric in the 21 days before their first exposure (the covariate window",
    );
    expect(await seriousA11yViolations(page)).toEqual([]);
    await env.dash.screenshot('cuped-results');
    expect(problemsApartFrom(env.dash.problems, 404)).toEqual([]);
  });
});
