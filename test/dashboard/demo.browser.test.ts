/**
 * `npm run demo`'s printed links open filled pages: each saved insight's link shows its definition in the
 * form and its answer (trend totals, funnel, retention table), and the results page charts enrollment
 * spread over the days since the experiment's (backdated) start. Screenshots in test-output/dashboard/demo-*.png.
 */
import { expect, it } from 'vitest';
import { runDemo } from '../../bin/demo/run';
import { describeBrowser } from '../helpers/browser';
import { openDashboard, problemsApartFrom, useDashboardServer } from '../helpers/dashboard';
import { ADMIN_TOKEN } from '../helpers/local';

describeBrowser('the demo’s links in the dashboard', () => {
  const server = useDashboardServer();

  it('opens each saved insight filled in and answered, and the results over the days', async () => {
    const lines: string[] = [];
    const summary = await runDemo({
      baseUrl: server.stack.url,
      adminToken: ADMIN_TOKEN,
      dashboardUrl: server.stack.url,
      projectName: 'Demo shop',
      users: 60,
      days: 14,
      experimentUsers: 400,
      seed: 3,
      print: (line) => lines.push(...line.split('\n')),
    });
    const link = (label: string) =>
      new URL(
        lines
          .find((l) => l.startsWith(`  ${label}:`))!
          .trim()
          .split(/\s+/)
          .at(-1)!,
      ).hash.slice(1);
    const dash = await openDashboard(server.browser, server.stack.url);
    const { page } = dash;

    await dash.go(link('Daily shoppers'));
    await page.waitForSelector('[data-table="trend-totals"]');
    expect(await page.$eval('#series-0-event', (el) => (el as any).value)).toBe('page_view');
    expect(await page.$eval('#series-1-event', (el) => (el as any).value)).toBe('purchase');
    expect(await page.$('[data-chart="trends"] canvas')).not.toBeNull();
    await dash.screenshot('demo-trends');

    await dash.go(link('View to purchase'));
    await page.waitForSelector('figure.funnel');
    expect(await page.$eval('#funnel-step-2-event', (el) => (el as any).value)).toBe('purchase');
    await dash.screenshot('demo-funnel');

    await dash.go(link('Visitors coming back'));
    await page.waitForSelector('table.retention');
    expect(await page.$eval('#retention-start', (el) => (el as any).value)).toBe('page_view');

    await dash.go(link('Results'));
    await page.waitForSelector('[data-chart="series"] canvas');
    // The series is daily over the two weeks since the start: a line, not a single point.
    const results = (await server.stack.admin('GET', `/admin/v1/projects/${summary.projectId}/experiments/${summary.experimentId}/results`)).body;
    const enrolled = results.series.map((p: { variants: Array<{ enrolled: number }> }) => p.variants[0]!.enrolled);
    expect(enrolled.length).toBeGreaterThanOrEqual(14);
    // Enrollment grows on every full day; today's is partial (just after midnight UTC it may have no one yet).
    const fullDays = enrolled.slice(0, -1);
    expect(new Set(fullDays).size).toBe(fullDays.length);
    await page.$eval('[data-chart="series"]', (el) => (el as any).scrollIntoView());
    await dash.screenshot('demo-results');
    expect(problemsApartFrom(dash.problems)).toEqual([]);
    await page.close();
  });
});
