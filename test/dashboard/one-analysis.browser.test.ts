/**
 * One analysis on every surface: for one comparison (treatment against control on the goal), every
 * figure the results page states (verdict, metrics table, interval chart, the App-version breakdown
 * whose one segment holds every user), the experiments list and the results API's summary is the
 * experiment's own analysis, `metrics[0]` of the results: sequential with Holm by default. The page used
 * to state the fixed-horizon top-level comparison in its headline while the breakdown and the metrics
 * note stated the sequential one. Screenshots in test-output/dashboard/one-analysis-*.png.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { formatMetricDifference } from '../../dashboard/src/results/format-metric';
import { formatInterval, formatPoints, formatPValue, formatRelative } from '../../dashboard/src/results/format-stats';
import { decisionStatement } from '../../dashboard/src/results/verdict';
import { describeBrowser } from '../helpers/browser';
import { problemsApartFrom, refreshResults, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const rowsOf = (page: Page, name: string) =>
  page.$$eval(`table[data-table="${name}"] tbody tr`, (rows) => rows.map((r) => [...(r as any).cells].map((c: any) => c.innerText.trim())));

describeBrowser('dashboard: one analysis on every surface', () => {
  const env = useDashboardProject('dashboard one analysis');
  const base = () => `/admin/v1/projects/${env.project}/experiments`;

  it('the verdict, the metrics table, the chart, the breakdown, the list and the API state the same figures', async () => {
    const { page } = env.dash;
    const created = await env.stack.admin('POST', base(), {
      name: 'Pricing page',
      goal_event: 'purchase',
      variants: ['control', 'treatment'],
      metrics: [{ name: 'Revenue', kind: 'sum', event: 'purchase', property: 'amount', role: 'secondary' }],
    });
    const id = created.body.id as string;
    const started = Date.parse((await env.stack.admin('POST', `${base()}/${id}/start`)).body.started_at);
    const events: unknown[] = [];
    for (const [variant, users, converted] of [
      ['control', 400, 80],
      ['treatment', 400, 124],
    ] as const) {
      for (let i = 0; i < users; i++) {
        const user = `${variant}-${i}`;
        const at = new Date(started + 1 + i).toISOString();
        events.push({
          name: '$experiment_exposure',
          user_id: user,
          timestamp: at,
          app_version: '2.0',
          properties: { $experiment_name: 'Pricing page', $variant: variant },
        });
        if (i < converted) events.push({ name: 'purchase', user_id: user, timestamp: at, app_version: '2.0', properties: { amount: 10 + (i % 7) } });
      }
    }
    for (let i = 0; i < events.length; i += 500) expect((await env.stack.post('/v1/events', env.key, { events: events.slice(i, i + 500) })).status).toBe(204);

    await env.dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await refreshResults(page);
    await page.waitForSelector('table[data-table="metrics"]');
    const api = (await env.stack.admin('GET', `${base()}/${id}/results`)).body;
    const primary = api.metrics[0];
    expect(primary).toMatchObject({ name: 'purchase', role: 'primary' });
    const c = primary.comparisons[0];
    const decision = decisionStatement({ sequential: true, correction: 'holm' }, c.adjusted_p_value);

    // The verdict.
    expect(await text(page, '.verdicts')).toContain(`(${decision}).`);
    expect(await text(page, '.verdict-basis')).toContain(
      'a sequential (always-valid) test of the difference in rates, its p-value adjusted with Holm across the 2 comparisons',
    );
    // The metrics table's primary row: each interval beside its own test's p-value.
    const [row] = await rowsOf(page, 'metrics');
    const difference = `${formatMetricDifference('conversion', c.difference)}\n${formatInterval(c.ci_low, c.ci_high, (x) => formatMetricDifference('conversion', x))}`;
    const relative = `${formatRelative(c.relative_difference)}\n${formatInterval(c.relative_ci_low, c.relative_ci_high, formatRelative)}`;
    expect(row!.slice(1)).toEqual([
      'treatment',
      expect.any(String),
      expect.any(String),
      difference,
      formatPValue(c.p_value),
      formatPValue(c.adjusted_p_value),
      relative,
      formatPValue(c.relative_p_value),
    ]);
    // The interval chart's numbers.
    const [charted] = await page.$$eval('[data-chart="intervals"] ~ details tbody tr', (trs) =>
      trs.map((tr: any) => [...tr.cells].map((x: any) => x.textContent.trim())),
    );
    expect(charted).toEqual(['treatment', formatPoints(c.difference), formatInterval(c.ci_low, c.ci_high, formatPoints)]);
    expect(await text(page, '#interval-chart-caption')).toContain('95% sequential interval');

    // The App-version breakdown: its one segment holds every user, so its comparison is the primary's.
    await page.select('#breakdown-by', 'app_version');
    await page.waitForSelector('table[data-table="breakdown"]');
    const segment = await rowsOf(page, 'breakdown');
    expect(segment[0]).toEqual(['2.0']);
    expect(segment[2]!.slice(4)).toEqual([difference, formatPValue(c.p_value), formatPValue(c.p_value), relative, formatPValue(c.relative_p_value)]);
    await env.dash.screenshot('one-analysis-results');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The experiments list and its API summary.
    const listed = (await env.stack.admin('GET', base())).body.experiments.find((e: { id: string }) => e.id === id);
    expect(listed.results_summary.lift).toEqual([
      {
        variant: 'treatment',
        difference: c.difference,
        decision_p_value: c.adjusted_p_value,
        outcome: c.adjusted_p_value < 0.05 ? 'better' : 'no-significant-difference',
        relative_difference: c.relative_difference,
        relative_ci_low: c.relative_ci_low,
        relative_ci_high: c.relative_ci_high,
        relative_p_value: c.relative_p_value,
      },
    ]);
    await env.dash.go(`/projects/${env.project}/experiments`);
    await page.waitForSelector('.experiments-table');
    const lift = await text(page, '.experiments-table .lifts');
    expect(lift).toContain(`treatment ${formatRelative(c.relative_difference)} ${formatInterval(c.relative_ci_low, c.relative_ci_high, formatRelative)}`);
    expect(lift).toContain(`(${decision})`);
    await env.dash.screenshot('one-analysis-list');
    expect(problemsApartFrom(env.dash.problems, 404, 409)).toEqual([]);
  });
});
