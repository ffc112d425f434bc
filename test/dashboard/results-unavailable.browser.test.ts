/**
 * A running experiment can always be recovered (issue 33), on the results page in real Chromium
 * against the local server: a metric the results carry as `unavailable` is one row saying why in words
 * and what to do, beside the metrics that were computed; and a refresh whose computation fails shows
 * the API's words (what happened and the way out), not a bare error. The results query of this server
 * always fails; the results shown are seeded through the real results store in the shape the results
 * job writes (experiment-metric-results.ts). Screenshot in test-output/dashboard/results-unavailable-1280.png.
 */
import { expect, it } from 'vitest';
import { experimentMetricResults } from '../../lambdas/domain/experiment-metric-results';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';
import type { ResultsQuery } from '../../lambdas/ports';
import { describeBrowser } from '../helpers/browser';
import { seededResults } from '../helpers/seeded-results';
import { clickButton, problemsApartFrom, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

const failing: ResultsQuery = { count: () => Promise.reject(new Error('engine refused the query')) };
const METRICS: ExperimentMetric[] = [
  { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary' },
  { name: 'Views', event: 'view', kind: 'count', role: 'secondary' },
];

describeBrowser('dashboard: results that cannot be computed (issue 33)', () => {
  const env = useDashboardProject('dashboard unavailable', { overrides: (deps) => ({ ...deps, resultsQuery: failing }) });

  it('shows an unavailable metric with its reason and the way out, and a failed refresh in words', async () => {
    const base = `/admin/v1/projects/${env.project}/experiments`;
    const created = await env.stack.admin('POST', base, { name: 'Unavailable', goal_event: 'signup', variants: ['control', 'treatment'], metrics: METRICS });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const started = await env.stack.admin('POST', `${base}/${created.body.id}/start`);
    const counts = [
      { variant: 'control', enrolled: 1000, converted: 100 },
      { variant: 'treatment', enrolled: 1000, converted: 130 },
    ];
    const sums = (a: number, b: number) => [
      { variant: 'control', users: 1000, sum: a, sum_squares: a * 3 },
      { variant: 'treatment', users: 1000, sum: b, sum_squares: b * 3 },
    ];
    const { metrics, guardrail_breached } = experimentMetricResults({ goal_event: 'signup', metrics: METRICS }, counts, [
      { variants: sums(0, 0), values_non_negative: true, unavailable: 'the engine returned a sum of this metric that is not a finite number' },
      { variants: sums(2000, 2300), values_non_negative: true },
    ]);
    const window = { from: started.body.started_at as string, to: new Date(Date.parse(started.body.started_at) + 60_000).toISOString() };
    const results = seededResults(created.body.id, window, counts, { metrics, guardrail_breached });
    await env.stack.deps.results.put(env.project, results);

    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/${created.body.id}/results`);
    await page.waitForSelector('table[data-table="metrics"]');
    const rows = await page.$$eval('table[data-table="metrics"] tbody tr', (trs) => trs.map((r: any) => r.innerText.replace(/\s+/g, ' ').trim() as string));
    expect(rows.find((r) => r.startsWith('Revenue'))).toMatch(
      /^Revenue \(sum per user\) Cannot be computed: the engine returned a sum of this metric that is not a finite number\. A running experiment’s metrics cannot be changed: stop it, then create a new experiment with the corrected metric\.$/,
    );
    // The goal and the other metric are computed as usual.
    expect(rows.some((r) => r.startsWith('signup'))).toBe(true);
    expect(rows.some((r) => r.startsWith('Views') && r.includes('treatment'))).toBe(true);
    await env.dash.screenshot('results-unavailable');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // Refresh: the computation fails, and the page says why and what to do.
    await clickButton(page, 'Refresh');
    const alert = await page.waitForSelector('p.error[role="alert"]');
    const words = await alert!.evaluate((el: any) => el.innerText as string);
    expect(words).toMatch(/^Could not refresh the results: The results could not be computed: the query failed/);
    expect(words).toMatch(/stop it .* and create a new experiment, under a new name, with the corrected metrics/);
    expect(problemsApartFrom(env.dash.problems, 500)).toEqual([]);
  });
});
