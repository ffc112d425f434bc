/**
 * Metric settings and metric results in the dashboard (issue 22), in real Chromium against the local
 * server: the form's metrics editor (add and remove up to 10, the fields each kind and role needs,
 * checked before sending), the sequential switch and the correction, saved and shown again; the
 * started experiment's summary; and the results page's table of secondary metrics and guardrails with
 * the adjusted p-values, the "guardrail breached" mark and banner, the sequential setting stated, and
 * a metric name rendered as text. Results are seeded through the real results store in the shape the
 * results job writes (metric-results.ts), since their computation lands from another change.
 * Screenshots in test-output/dashboard/metrics-*.png.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { metricResults, type MetricInput } from '../../lambdas/domain/metric-results';
import { formatMeanWithError } from '../../dashboard/src/results/format-metric';
import { formatPStatement, formatPValue } from '../../dashboard/src/results/format-stats';
import { describeBrowser } from '../helpers/browser';
import { seededResults, seededSeries } from '../helpers/seeded-results';
import { clickButton, openDashboard, problemsApartFrom, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const value = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).value as string);
const tableRows = (page: Page, name: string) =>
  page.$$eval(`table[data-table="${name}"] tbody tr`, (rows) => rows.map((r) => [...(r as any).cells].map((c: any) => c.innerText.trim())));

const HOSTILE = '<img src=x onerror="globalThis.__pwned=1">';

/** Results as the results job stores them, with `metrics` and `guardrail_breached`. */
function resultsWithMetrics(experimentId: string, startedAt: string, metrics: MetricInput[] | undefined, correction: 'holm' | 'benjamini-hochberg' | null) {
  const window = { from: startedAt, to: new Date(Date.parse(startedAt) + 60_000).toISOString() };
  const counts = [
    { variant: 'control', enrolled: 1000, converted: 100 },
    { variant: 'treatment', enrolled: 1000, converted: 130 },
  ];
  const results = seededResults(experimentId, window, counts, { series: seededSeries(window, counts) });
  if (metrics) {
    const computed = metricResults(metrics, { sequential: false, correction });
    results.metrics = computed;
    results.guardrail_breached = computed.some((m) => m.breached === true);
  }
  return results;
}

describeBrowser('dashboard: metric settings and metric results (issue 22)', () => {
  const env = useDashboardProject('dashboard metrics');
  const base = () => `/admin/v1/projects/${env.project}/experiments`;
  let experimentId = '';

  it('edits metrics in the form: the fields each kind and role needs, checked before sending, up to 10', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/new`);
    await page.waitForSelector('#experiment-name');
    await page.type('#experiment-name', 'Checkout metrics');
    await page.type('#experiment-goal', 'purchase');
    // Sequential on and Holm by default.
    expect(await page.$eval('input[name="sequential"]', (el) => (el as any).checked)).toBe(true);
    expect(await value(page, 'select[name="correction"]')).toBe('holm');

    await clickButton(page, 'Add metric');
    await page.waitForSelector('#metric-0-name');
    // A sum needs its property; a guardrail its direction (a select, preset).
    expect(await page.$('#metric-0-property')).toBeNull();
    await page.select('#metric-0-kind', 'sum');
    await page.waitForSelector('#metric-0-property');
    await page.type('#metric-0-event', 'purchase');
    await page.type('#metric-0-cap', '1.5');
    await clickButton(page, 'Add metric');
    await page.waitForSelector('#metric-1-name');
    await page.type('#metric-1-name', 'purchase');
    await page.type('#metric-1-event', 'error');

    const writes: string[] = [];
    page.on('request', (r) => r.method() !== 'GET' && writes.push(`${r.method()} ${new URL(r.url()).pathname}`));
    await clickButton(page, 'Save');
    await page.waitForSelector('#metric-0-name-error');
    expect(await text(page, '#metric-0-name-error')).toBe('Give the metric a name, for example “Revenue”.');
    expect(await text(page, '#metric-0-property-error')).toBe('Name the numeric property to sum, for example “amount”.');
    expect(await text(page, '#metric-0-cap-error')).toContain('a percentile from 0.5 to 0.9999');
    expect(await text(page, '#metric-1-name-error')).toBe('“purchase” is the primary metric’s name (the goal event): choose another name.');
    expect(await text(page, '.error[role="alert"]')).toBe('Not created: fix the fields marked below.');
    expect(writes).toEqual([]);
    expect(await page.$eval('#metric-0-name', (el) => el.getAttribute('aria-invalid'))).toBe('true');
    await env.dash.screenshot('metrics-form-errors');

    await page.type('#metric-0-name', 'Revenue');
    await page.type('#metric-0-property', 'amount');
    await page.click('#metric-0-cap', { count: 3 });
    await page.keyboard.type('0.99');
    await page.click('#metric-1-name', { count: 3 });
    await page.keyboard.type('Errors');
    await page.select('#metric-1-kind', 'count');
    await page.select('#metric-1-role', 'guardrail');
    await page.waitForSelector('#metric-1-direction');
    await page.select('#metric-1-direction', 'increase');
    // Up to 10: then Add metric is disabled and says why.
    for (let i = 2; i < 10; i++) await clickButton(page, 'Add metric');
    await page.waitForSelector('#metric-9-name');
    expect(await page.$eval('.metrics-field > button', (el) => (el as any).disabled)).toBe(true);
    expect(await text(page, '#metrics-full')).toBe('An experiment has at most 10 metrics besides the goal.');
    for (let i = 9; i >= 2; i--) await page.click(`button[aria-label="Remove metric ${i + 1}"]`);
    expect(await page.$('#metric-2-name')).toBeNull();
    await page.click('input[name="sequential"]');
    await page.select('select[name="correction"]', 'benjamini-hochberg');
    await env.dash.screenshot('metrics-form');

    await Promise.all([page.waitForFunction(() => (globalThis as any).location.hash.match(/experiments\/[0-9a-f-]{36}$/)), clickButton(page, 'Save')]);
    experimentId = (await page.evaluate(() => (globalThis as any).location.hash as string)).split('/').pop()!;
    const stored = (await env.stack.admin('GET', `${base()}/${experimentId}`)).body;
    expect(stored).toMatchObject({
      metrics: [
        { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary', cap: 0.99 },
        { name: 'Errors', event: 'error', kind: 'count', role: 'guardrail', direction: 'increase' },
      ],
      sequential: false,
      correction: 'benjamini-hochberg',
    });
    expect(stored.metrics[0]).not.toHaveProperty('direction');
    expect(stored.metrics[1]).not.toHaveProperty('property');

    // Loaded again, the form shows them as stored; a removal is saved.
    await page.waitForSelector('#metric-1-name');
    expect(await value(page, '#metric-0-property')).toBe('amount');
    expect(await value(page, '#metric-1-direction')).toBe('increase');
    expect(await page.$eval('input[name="sequential"]', (el) => (el as any).checked)).toBe(false);
    await page.click('button[aria-label="Remove metric 1 (Revenue)"]');
    await clickButton(page, 'Save');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.status-line')?.textContent === 'Saved.');
    expect((await env.stack.admin('GET', `${base()}/${experimentId}`)).body.metrics.map((m: any) => m.name)).toEqual(['Errors']);
    expect(problemsApartFrom(env.dash.problems, 400)).toEqual([]);
  });

  it('shows the settings read-only once started', async () => {
    const { page } = env.dash;
    await env.stack.admin('PATCH', `${base()}/${experimentId}`, {
      variants: ['control', 'treatment'],
      metrics: [
        { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary' },
        { name: 'Errors', event: 'error', kind: 'count', role: 'guardrail', direction: 'increase' },
      ],
    });
    await env.stack.admin('POST', `${base()}/${experimentId}/start`);
    // Another page first: the same route again would not load the experiment again.
    await env.dash.go(`/projects/${env.project}/experiments`);
    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}`);
    await page.waitForSelector('.metric-facts');
    expect(await text(page, '.metric-facts')).toBe(
      'Revenue (sum of amount of purchase per user; secondary)\nErrors (error per user; guardrail, worse when it increases)',
    );
    expect(await text(page, '.experiment-facts')).toContain('Fixed-horizon testing; Benjamini–Hochberg correction');
  });

  it('shows secondary metrics and a breached guardrail in one table, with adjusted p-values, a banner and names as text', async () => {
    const { page } = env.dash;
    const experiment = (await env.stack.admin('GET', `${base()}/${experimentId}`)).body;
    const variants = (users: number, sums: Array<[number, number]>) =>
      sums.map(([sum, sumSquares], i) => ({ variant: i === 0 ? 'control' : 'treatment', sums: { users, sum, sum_squares: sumSquares } }));
    const metrics: MetricInput[] = [
      {
        name: 'purchase',
        kind: 'conversion',
        role: 'primary',
        variants: variants(1000, [
          [100, 100],
          [130, 130],
        ]),
      },
      {
        name: 'Revenue',
        kind: 'sum',
        role: 'secondary',
        values_non_negative: true,
        variants: variants(1000, [
          [35_000, 4_000_000],
          [36_500, 4_200_000],
        ]),
      },
      {
        name: HOSTILE,
        kind: 'conversion',
        role: 'secondary',
        variants: variants(1000, [
          [300, 300],
          [310, 310],
        ]),
      },
      {
        name: 'Errors',
        kind: 'count',
        role: 'guardrail',
        direction: 'increase',
        variants: variants(1000, [
          [200, 400],
          [320, 700],
        ]),
      },
    ];
    const seeded = resultsWithMetrics(experimentId, experiment.started_at, metrics, 'benjamini-hochberg');
    await env.stack.deps.results.put(env.project, seeded);
    const breached = (seeded.metrics as any[]).find((m) => m.name === 'Errors');
    expect(breached.breached).toBe(true);
    expect(seeded.guardrail_breached).toBe(true);

    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await page.waitForSelector('table[data-table="metrics"]');
    expect(await text(page, '.guardrail-banner')).toBe(
      'Guardrail breached. “Errors” moved in the direction marked bad, significantly, for at least one variant. Look at the guardrail rows below before shipping a variant.',
    );
    const rows = await tableRows(page, 'metrics');
    const revenue = (seeded.metrics as any[])[1];
    // The primary metric first (the verdict's), then the others: each p-value after its own interval.
    expect(rows.map((r) => r.length)).toEqual([9, 9, 9, 9]);
    expect(rows[0]!.slice(0, 2)).toEqual(['purchase (conversion, primary)', 'treatment']);
    expect(rows[1]!.slice(0, 2)).toEqual(['Revenue (sum per user)', 'treatment']);
    expect(rows[1]![2]).toBe(formatMeanWithError('sum', 35, revenue.variants[0].std_error));
    expect(rows[1]![2]).toMatch(/^35 ± 1\.\d\d$/);
    expect(rows[1]![4]).toMatch(/^\+1\.5\n\u22123\.\d+ to \+6\.\d+$/);
    expect(rows[1]![5]).toBe(formatPValue(revenue.comparisons[0].p_value));
    expect(rows[1]![6]).toBe(formatPValue(revenue.comparisons[0].adjusted_p_value));
    expect(rows[1]![8]).toBe(formatPValue(revenue.comparisons[0].relative_p_value));
    expect(revenue.comparisons[0].adjusted_p_value).toBeGreaterThan(revenue.comparisons[0].p_value);
    // The user-set name is text: no element made of it, the page's script untouched.
    expect(rows[2]![0]).toBe(`${HOSTILE} (conversion)`);
    expect(await page.$('table[data-table="metrics"] img')).toBeNull();
    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined();
    expect(rows[3]![0]).toBe('Errors (count per user, guardrail)\nGuardrail breached');
    expect(rows[3]![6]).toBe('not adjusted');
    expect(await page.$$eval('table[data-table="metrics"] tr.breached', (r) => r.length)).toBe(1);
    // The verdict follows the primary metric (the goal's conversion) and says so, whatever the
    // secondary metrics and the breached guardrail show (those have the table and the banner).
    expect(await text(page, '.verdict-basis')).toContain('The verdict rests on the primary metric: the share of enrolled users who sent purchase');
    const verdict = await text(page, '.verdicts');
    const primary = (seeded.metrics as any[])[0].comparisons[0];
    // Significant before the correction, not after it across the goal and the two secondary metrics:
    // the verdict rests on the adjusted p-value, as the metrics table shows it.
    expect(primary.p_value).toBeLessThan(0.05);
    expect(primary.adjusted_p_value).toBeGreaterThan(0.05);
    expect(verdict).toBe(
      `No significant difference yet between treatment and control: 13% of 1,000 users against 10% of 1,000 users (fixed-horizon test, Benjamini–Hochberg-adjusted ${formatPStatement(primary.adjusted_p_value)}).`,
    );
    expect(rows[0]![6]).toBe(formatPValue(primary.adjusted_p_value));
    expect(verdict).not.toMatch(/Revenue|Errors|guardrail/);
    expect(await text(page, '.metrics-basis')).toContain('Sequential testing is off');
    expect(await text(page, '.metrics-basis')).toContain('corrected with Benjamini–Hochberg');
    expect(await page.$$eval('th', (ths) => ths.map((t) => (t as any).innerText))).toContain('Adjusted p-value (Benjamini–Hochberg)');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await env.dash.screenshot('metrics-results');

    const small = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await small.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    await small.page.waitForSelector('table[data-table="metrics"]');
    // Each row a card: every number on screen without sideways scrolling.
    expect(await small.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousA11yViolations(small.page)).toEqual([]);
    await small.screenshot('metrics-results');
    await small.go(`/projects/${env.project}/experiments/new`);
    await small.page.waitForSelector('#experiment-name');
    await clickButton(small.page, 'Add metric');
    await small.page.select('#metric-0-role', 'guardrail');
    await small.page.select('#metric-0-kind', 'sum');
    await small.page.waitForSelector('#metric-0-property');
    expect(await small.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousA11yViolations(small.page)).toEqual([]);
    await small.screenshot('metrics-form');
    expect(problemsApartFrom(small.problems, 404)).toEqual([]);
    await small.page.close();
  });

  it('renders results stored before metrics without a comparison: it asks for a refresh, no table, no verdict, no banner', async () => {
    const { page } = env.dash;
    const experiment = (await env.stack.admin('GET', `${base()}/${experimentId}`)).body;
    await env.stack.deps.results.put(env.project, resultsWithMetrics(experimentId, experiment.started_at, undefined, null));
    await env.dash.go(`/projects/${env.project}/experiments`);
    await env.dash.go(`/projects/${env.project}/experiments/${experimentId}/results`);
    // No analysis to state: the page says to compute them again, and states no comparison at all.
    await page.waitForSelector('::-p-text(Press Refresh to compute them again)');
    expect(await page.$('table[data-table="metrics"]')).toBeNull();
    expect(await page.$('table[data-table="comparisons"]')).toBeNull();
    expect(await page.$('.verdicts')).toBeNull();
    expect(await page.$('[data-chart="intervals"]')).toBeNull();
    expect(await page.$('.guardrail-banner')).toBeNull();
    expect(problemsApartFrom(env.dash.problems, 400, 404)).toEqual([]);
  });
});
