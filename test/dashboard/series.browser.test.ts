/**
 * The results page's "Conversion over time" chart (issue 22) in real Chromium against the local server:
 * a run under 3 days draws one point per UTC hour with hour labels, a 10-day run one per day, and the
 * legend names the variants only, never a placeholder. Screenshots at 1280 and 375 px in
 * test-output/dashboard/results-series-{hourly,daily}-<width>.png (the whole page) and
 * results-series-chart-{hourly,daily}-<width>.png (the chart's figure).
 */
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { formatPercent } from '../../dashboard/src/results/format-stats';
import { describeBrowser } from '../helpers/browser';
import {
  openDashboard,
  problemsApartFrom,
  refreshResults,
  SCREENSHOT_DIR,
  seriousA11yViolations,
  useDashboardProject,
  type DashboardPage,
} from '../helpers/dashboard';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The series chart as a user sees it: the legend's entries, the caption, the numbers table. */
const seriesChart = (page: Page) =>
  page.$eval('[data-chart="series"]', (el: any) => {
    const figure = el.closest('figure');
    return {
      width: el.querySelector('canvas')?.getBoundingClientRect().width ?? 0,
      legend: [...el.querySelectorAll('.u-legend .u-series')].map((e: any) => e.innerText.trim()),
      caption: figure.querySelector('figcaption').innerText.trim(),
      columns: [...figure.querySelectorAll('details thead th')].map((th: any) => th.textContent.trim()),
      rows: [...figure.querySelectorAll('details tbody tr')].map((tr: any) => [...tr.cells].map((c: any) => c.textContent.trim())),
    };
  });

describeBrowser('dashboard: the series chart, hourly under 3 days, daily after (issue 22)', () => {
  /** The local server's clock runs this far behind real time (a run that started hours or days ago). */
  let clockOffsetMs = 0;
  const env = useDashboardProject('dashboard series', { clock: () => Date.now() + clockOffsetMs });
  const base = () => `/admin/v1/projects/${env.project}/experiments`;
  const send = async (events: unknown[]) => expect((await env.stack.post('/v1/events', env.key, { events })).status).toBe(204);
  const ids: Record<string, string> = {};

  /**
   * An experiment started `ago` ms before now; every `every` ms of the run 6 users enrol per variant,
   * of whom 1 (control) and 1 to 4 (treatment, changing with time) buy a minute later.
   */
  async function runFor(name: string, ago: number, every: number): Promise<string> {
    clockOffsetMs = -ago;
    const id = (await env.stack.admin('POST', base(), { name, goal_event: 'purchase', variants: ['control', 'treatment'] })).body.id as string;
    const started = Date.parse((await env.stack.admin('POST', `${base()}/${id}/start`)).body.started_at);
    clockOffsetMs = 0;
    const events: unknown[] = [];
    for (let at = started + 60_000, k = 0; at < started + ago - 120_000; at += every, k++) {
      for (const [variant, buyers] of [
        ['control', 1],
        ['treatment', [4, 1, 3][k % 3]!],
      ] as const) {
        for (let i = 0; i < 6; i++) {
          const user = `${variant}-${at}-${i}`;
          events.push({
            name: '$experiment_exposure',
            user_id: user,
            timestamp: new Date(at).toISOString(),
            properties: { $experiment_name: name, $variant: variant },
          });
          if (i < buyers) events.push({ name: 'purchase', user_id: user, timestamp: new Date(at + 60_000).toISOString() });
        }
      }
    }
    await send(events);
    return id;
  }

  /** Opens the results page, screenshots it and the chart's figure, and reads the chart. */
  async function look(dash: DashboardPage, id: string, kind: 'hourly' | 'daily') {
    await dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await dash.page.waitForSelector('[data-chart="series"] canvas');
    await dash.screenshot(`results-series-${kind}`);
    const width = dash.page.viewport()?.width ?? 0;
    const figure = await dash.page.$('figure:has([data-chart="series"])');
    await figure!.screenshot({ path: join(SCREENSHOT_DIR, `results-series-chart-${kind}-${width}.png`) });
    return seriesChart(dash.page);
  }

  it('a 1-day run: one point per UTC hour, hour labels, a legend of names only', async () => {
    const { page } = env.dash;
    ids.hourly = await runFor('One day of hours', 22 * HOUR, 3 * HOUR);
    await env.dash.go(`/projects/${env.project}/experiments/${ids.hourly}/results`);
    await refreshResults(page);
    const api = (await env.stack.admin('GET', `${base()}/${ids.hourly}/results`)).body;
    // 22 hours from a start inside an hour: 23 hours of the run (22 when it started on the hour).
    expect(api.series.length).toBeGreaterThanOrEqual(22);
    expect(api.series.every((p: any) => p.interval === 'hour')).toBe(true);
    const chart = await look(env.dash, ids.hourly, 'hourly');
    expect(chart.legend).toEqual(['control', 'treatment']);
    expect(chart.legend.join(' ')).not.toMatch(/—|-{2}/);
    expect(chart.caption).toContain('one point per UTC hour of the run');
    expect(chart.columns).toEqual(['Hour (UTC)', 'control', 'treatment']);
    // One row per hour, labelled with its day and hour; the last is the totals.
    expect(chart.rows).toHaveLength(api.series.length);
    expect(chart.rows[0]![0]).toBe(`${api.series[0].date.slice(0, 10)} ${api.series[0].date.slice(11, 16)}`);
    expect(chart.rows[0]![0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:00$/);
    expect(chart.rows.at(-1)!.slice(1)).toEqual(api.variants.map((v: any) => `${formatPercent(v.conversion_rate)} (${v.converted}/${v.enrolled})`));
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems, 404, 409)).toEqual([]);
  });

  it('a 10-day run: one point per UTC day, day labels, the same legend', async () => {
    const { page } = env.dash;
    ids.daily = await runFor('Ten days', 10 * DAY, 12 * HOUR);
    await env.dash.go(`/projects/${env.project}/experiments/${ids.daily}/results`);
    await refreshResults(page);
    const api = (await env.stack.admin('GET', `${base()}/${ids.daily}/results`)).body;
    expect(api.series.map((p: any) => p.interval)).toEqual(Array(11).fill('day'));
    const chart = await look(env.dash, ids.daily, 'daily');
    expect(chart.legend).toEqual(['control', 'treatment']);
    expect(chart.caption).toBe('Cumulative conversion rate per variant, one point per UTC day of the run.');
    expect(chart.columns).toEqual(['Day', 'control', 'treatment']);
    expect(chart.rows.map((r) => r[0])).toEqual(api.series.map((p: any) => p.date));
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('both at 375 px: the chart fits the screen, the legend still names only the variants', async () => {
    const small = await openDashboard(env.browser, env.stack.url, { width: 375 });
    for (const kind of ['hourly', 'daily'] as const) {
      const chart = await look(small, ids[kind]!, kind);
      expect(chart.width, kind).toBeGreaterThan(200);
      expect(chart.width, kind).toBeLessThanOrEqual(375);
      expect(chart.legend, kind).toEqual(['control', 'treatment']);
      expect(await seriousA11yViolations(small.page), kind).toEqual([]);
    }
  });
});
