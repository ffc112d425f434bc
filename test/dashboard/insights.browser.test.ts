/**
 * The insights section (issue 25) in real Chromium against the local server: the trends page runs a
 * definition (an event by platform, with the previous period) and shows its chart, its totals and
 * the exact query; the definition and the query ID are in the URL hash, so the link opens the same
 * trends on another page (at 375 px); an event value that is HTML is shown as text. Then, with the AWS
 * path's engine on a stubbed Athena: the page shows progress while the query runs, can be left, and
 * comes back to the same query. Screenshots in test-output/dashboard/insights-*.png at 1280 and 375 px.
 */
import { AthenaClient, GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import type { Page } from 'puppeteer-core';
import { afterAll, expect, it } from 'vitest';
import { AthenaInsightEngine } from '../../lambdas/adapters/athena-insights';
import { describeBrowser } from '../helpers/browser';
import { clickButton, openDashboard, problemsApartFrom, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';
import { FAR_FUTURE_TRENDS, storeOldSavedInsight } from '../helpers/saved-insight';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const HTML_VALUE = '<img src=x onerror="document.title=1">';
const DAY_MS = 86_400_000;

describeBrowser('dashboard: trends (issue 25)', () => {
  const env = useDashboardProject('dashboard insights', {
    beforeOpen: async ({ stack, key }) => {
      const today = Date.now();
      const at = (daysAgo: number) => new Date(today - daysAgo * DAY_MS - 60_000).toISOString();
      const events = [
        ...[0, 1, 1, 2].map((d, i) => ({ name: 'signup', user_id: `ios-${i}`, timestamp: at(d), platform: 'ios' })),
        ...[0, 3].map((d, i) => ({ name: 'signup', user_id: `android-${i}`, timestamp: at(d), platform: 'android' })),
        { name: 'signup', user_id: 'html', timestamp: at(1), platform: HTML_VALUE },
        // The previous period: two signups.
        ...[8, 9].map((d, i) => ({ name: 'signup', user_id: `old-${i}`, timestamp: at(d), platform: 'ios' })),
      ];
      const res = await stack.post('/v1/events', key, { events });
      expect(res.status, res.text).toBe(204);
    },
  });

  it('shows an event per platform over the last 7 days with the previous period, the exact query, and a shareable link', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/insights`);
    await page.waitForSelector('a ::-p-text(Trends)');
    expect(await page.$eval('nav a[aria-current="page"]', (a) => a.textContent)).toBe('Insights');
    await page.click('a ::-p-text(Trends)');
    await page.waitForSelector('#series-0-event');
    await page.type('#series-0-event', 'signup');
    await page.select('#trend-breakdown', 'platform');
    await clickButton(page, 'Show trends');
    await page.waitForSelector('[data-table="trend-totals"]');
    const totals = await text(page, '[data-table="trend-totals"]');
    // ios 4, android 2, the HTML value 1; the previous period's two signups fall in "other"? No: ios is a top value.
    expect(totals).toMatch(/signup: events · ios\s+4\s+2\s+\+100\.0%/);
    expect(totals).toMatch(/signup: events · android\s+2\s+0\s+new/);
    expect(totals).toContain(`signup: events · ${HTML_VALUE}`);
    // The HTML value is text: no image element was made from it.
    expect(await page.$$eval('img', (els) => els.length)).toBe(0);
    expect(await page.title()).not.toBe('1');
    // The exact query: over the events view's two parts (curated and the landing tail), each event once.
    expect(await text(page, '.how-computed pre')).toMatch(/FROM curated_events\b/);
    expect(await text(page, '.how-computed pre')).toMatch(/FROM events_tail\b/);
    expect(await page.$('[data-chart="trends"] canvas')).not.toBeNull();
    // The last 7 days end today: today is still counting, said in the caption and on its row, and only on it.
    expect(await text(page, '[data-chart="trends"] ~ details, figure figcaption')).toContain('The grey band');
    const rowHeads = await page.$$eval('[data-chart="trends"] ~ details tbody th', (ths) => ths.map((th: any) => th.textContent));
    expect(rowHeads.filter((h: string) => h.includes('(still counting)'))).toEqual([`${rowHeads.at(-1)}`]);
    expect(rowHeads.at(-1)).toBe(`${new Date().toISOString().slice(0, 10)} (still counting)`);
    const hash = await page.evaluate(() => (globalThis as any).location.hash as string);
    expect(hash).toMatch(/^#\/projects\/[^/]+\/insights\/trends\?d=.+&q=[0-9a-f]{32}$/);
    await env.dash.screenshot('insights-trends');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);

    // The link on a narrow screen: the same definition runs (from the cache) and shows the same totals.
    const narrow = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await narrow.go(hash.slice(1));
    await narrow.page.waitForSelector('[data-table="trend-totals"]');
    expect(await narrow.page.$eval('#series-0-event', (el) => (el as any).value)).toBe('signup');
    expect(await narrow.page.$eval('#trend-breakdown', (el) => (el as any).value)).toBe('platform');
    expect(await text(narrow.page, '[data-table="trend-totals"]')).toContain('2');
    await narrow.screenshot('insights-trends');
    expect(await seriousA11yViolations(narrow.page)).toEqual([]);
    expect(problemsApartFrom(narrow.problems)).toEqual([]);
    await narrow.page.close();
  });

  it('saves the trends under a name, lists it under Insights, and its link opens it', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/insights/trends`);
    await page.waitForSelector('#series-0-event');
    await page.type('#series-0-event', 'signup');
    await page.select('#trend-breakdown', 'platform');
    await clickButton(page, 'Show trends');
    await page.waitForSelector('#save-insight-name');
    await page.type('#save-insight-name', `Signups by platform ${HTML_VALUE}`);
    await clickButton(page, 'Save insight');
    await page.waitForSelector('.save-insight .status-line ::-p-text(Saved as)');
    const listed = (await env.stack.admin('GET', `/admin/v1/projects/${env.project}/saved-insights`)).body.saved_insights;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ kind: 'trends', definition: { breakdown: 'platform', series: [{ event: 'signup', measure: 'events' }] } });

    await env.dash.go(`/projects/${env.project}/insights`);
    await page.waitForSelector('.saved-insights a');
    expect(await text(page, '.saved-insights')).toContain(`Signups by platform ${HTML_VALUE}`);
    expect(await page.$$eval('img', (els) => els.length)).toBe(0);
    await env.dash.screenshot('insights-saved');
    expect(await seriousA11yViolations(page)).toEqual([]);
    const narrow = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await narrow.go(`/projects/${env.project}/insights`);
    await narrow.page.waitForSelector('.saved-insights a');
    await narrow.screenshot('insights-saved');
    expect(await seriousA11yViolations(narrow.page)).toEqual([]);
    await narrow.page.close();
    await page.click('.saved-insights a');
    await page.waitForSelector('[data-table="trend-totals"]');
    expect(await page.$eval('#trend-breakdown', (el) => (el as any).value)).toBe('platform');
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });

  it("says what is wrong with a definition in the API's words, beside the field it is about", async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/insights/trends`);
    await page.waitForSelector('#series-0-event');
    // No event named: said beside "Event 1".
    await clickButton(page, 'Show trends');
    await page.waitForSelector('#series-0-event-error');
    expect(await text(page, '#series-0-event-error')).toBe('Event must not be empty');
    expect(await page.$('p.error[role="alert"]')).toBeNull();
    // A sum without its property: said beside "Numeric property" of that event.
    await page.type('#series-0-event', 'signup');
    await page.select('#series-0-measure', 'sum');
    await clickButton(page, 'Show trends');
    await page.waitForSelector('#series-0-property-error');
    expect(await text(page, '#series-0-property-error')).toMatch(/^a sum series needs property: the numeric property to sum$/);
    expect(await page.$('#series-0-event-error')).toBeNull();
    expect(await page.$('p.error[role="alert"]')).toBeNull();
    await env.dash.screenshot('trends-field-error');
    expect(problemsApartFrom(env.dash.problems, 400)).toEqual([]);
  });

  it('a shared link or saved insight holding a day outside the bounds says what is wrong, beside the date and on the Insights page', async () => {
    const { page } = env.dash;
    const definition = FAR_FUTURE_TRENDS;
    // A link as anyone can write it: the page runs it and shows the API's refusal beside each date.
    await env.dash.go(`/projects/${env.project}/insights/trends?${new URLSearchParams({ d: JSON.stringify(definition) })}`);
    await page.waitForSelector('#trend-from-error');
    expect(await text(page, '#trend-from-error')).toBe('Date from must be from 1970-01-01 to 2999-12-31');
    expect(await text(page, '#trend-to-error')).toBe('Date to must be from 1970-01-01 to 2999-12-31');
    // A saved insight from before the bounds: listed with what is wrong and what to do.
    const id = '00000000-0000-4000-8000-00000000b0d5';
    await storeOldSavedInsight(env.stack, env.project, id, definition);
    await env.dash.go(`/projects/${env.project}/insights`);
    await page.waitForSelector('.saved-insights .error');
    expect(await text(page, '.saved-insights .error')).toBe(
      'This insight no longer runs as saved: definition.date_from: date_from must be from 1970-01-01 to 2999-12-31; definition.date_to: date_to must be from 1970-01-01 to 2999-12-31. Open it, correct the field and save it again, or delete it.',
    );
    expect(problemsApartFrom(env.dash.problems, 400)).toEqual([]);
    expect((await env.stack.admin('DELETE', `/admin/v1/projects/${env.project}/saved-insights/${id}`)).status).toBe(204);
  });

  it('suggests the event names seen recently in the trends, retention and funnel event fields', async () => {
    const { page } = env.dash;
    for (const [route, input] of [
      ['trends', '#series-0-event'],
      ['retention', '#retention-start'],
      ['funnels', '#funnel-step-0-event'],
    ] as const) {
      await env.dash.go(`/projects/${env.project}/insights/${route}`);
      await page.waitForSelector(input);
      await page.waitForFunction(
        (sel) => {
          const el = (globalThis as any).document.querySelector(sel);
          return (el?.list?.options?.length ?? 0) > 0;
        },
        {},
        input,
      );
      const options = await page.$eval(input, (el: any) => [...el.list.options].map((o: any) => o.value));
      expect(options).toContain('signup');
      expect(options.some((o: string) => o.startsWith('$'))).toBe(false);
    }
  });
});

describeBrowser('dashboard: trends on Athena, while the query runs (issue 25)', () => {
  const athena = mockClient(AthenaClient);
  let state = 'RUNNING';
  athena.on(StartQueryExecutionCommand).callsFake((input) => ({ QueryExecutionId: `exec-${input.ClientRequestToken}` }));
  athena.on(GetQueryExecutionCommand).callsFake((input) => ({
    QueryExecution: { QueryExecutionId: input.QueryExecutionId, Status: { State: state }, Statistics: { DataScannedInBytes: 5_242_880 } },
  }));
  const header = ['series_index', 'period', 'bucket', 'breakdown_value', 'breakdown_rank', 'events', 'users', 'value_sum', 'value_count'];
  const row = (values: Array<string | undefined>) => ({ Data: values.map((v) => (v === undefined ? {} : { VarCharValue: v })) });
  athena.on(GetQueryResultsCommand).callsFake(() => ({
    ResultSet: {
      ResultSetMetadata: { ColumnInfo: header.map((Name) => ({ Name, Type: 'varchar' })) },
      Rows: [row(header), row(['0', 'current', undefined, undefined, undefined, '42', '40', undefined, '0'])],
    },
  }));
  afterAll(() => athena.restore());
  const client = new AthenaClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  const env = useDashboardProject('dashboard insights athena', {
    overrides: (deps) => ({
      ...deps,
      insightEngine: new AthenaInsightEngine(client, { workGroup: 'w', database: 'tally', arrivalAllowanceMs: 0 }),
      insightWaitMs: 0,
    }),
  });

  it('shows progress while the query runs, can be left, and comes back to the same query', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/insights/trends`);
    await page.waitForSelector('#series-0-event');
    await page.type('#series-0-event', 'signup');
    await clickButton(page, 'Show trends');
    await page.waitForSelector('.insight-progress ::-p-text(Running on Athena)');
    expect(await text(page, '.insight-progress')).toMatch(/5\.0 MB read so far\. You can leave this page/);
    const hash = await page.evaluate(() => (globalThis as any).location.hash as string);
    expect(hash).toMatch(/&q=[0-9a-f]{32}$/);
    await env.dash.screenshot('insights-running');
    // Leave, let the query finish meanwhile, come back by the link: the same query's result, not a new one.
    await env.dash.go(`/projects/${env.project}/events`);
    state = 'SUCCEEDED';
    const starts = athena.commandCalls(StartQueryExecutionCommand).length;
    await env.dash.go(hash.slice(1));
    await page.waitForSelector('[data-table="trend-totals"]');
    expect(await text(page, '[data-table="trend-totals"]')).toMatch(/signup: events\s+42/);
    expect(athena.commandCalls(StartQueryExecutionCommand)).toHaveLength(starts);
    expect(await text(page, '.how-computed')).toContain('reading 5.0 MB');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });
});
