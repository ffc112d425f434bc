/**
 * Breakdown lines' kinds on the trends and funnels pages (issue 33, point 6) in real Chromium against
 * the local server: a property whose values include the text "other" and "unknown", events without
 * it, and more values than the top 10. The grouped rest reads "Other values", the missing value
 * "Unknown", and the values sent as "other" and "unknown" read as they were sent, each its own line.
 * Screenshot in test-output/dashboard/insights-breakdown-kinds-1280.png.
 */
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { clickButton, problemsApartFrom, seriousA11yViolations, setInputValue as setValue, useDashboardProject } from '../helpers/dashboard';

const DAY = 86_400_000;
const dayOf = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);
// Users view the page with plan "other" (5), "unknown" (4), none (3), and a..j (one each); each then signs up.
const PLANS: Array<string | undefined> = [
  ...Array<string>(5).fill('other'),
  ...Array<string>(4).fill('unknown'),
  undefined,
  undefined,
  undefined,
  ...'abcdefghij',
];

describeBrowser('dashboard: breakdown kinds (issue 33)', () => {
  const env = useDashboardProject('dashboard breakdown kinds', {
    beforeOpen: async ({ stack, key }) => {
      const day = dayOf(-1);
      const events = PLANS.flatMap((plan, i) => [
        { name: 'view', user_id: `k${i}`, timestamp: `${day}T10:00:00Z`, ...(plan === undefined ? {} : { properties: { plan } }) },
        { name: 'signup', user_id: `k${i}`, timestamp: `${day}T11:00:00Z` },
      ]);
      const res = await stack.post('/v1/events', key, { events });
      expect(res.status, res.text).toBe(204);
    },
  });

  it('names the grouped rest "Other values" and the missing value "Unknown", apart from the values "other" and "unknown"', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/insights/trends`);
    await page.waitForSelector('#series-0-event');
    await page.type('#series-0-event', 'view');
    await page.select('#trend-breakdown', 'property');
    await page.waitForSelector('#trend-breakdown-property');
    await page.type('#trend-breakdown-property', 'plan');
    await clickButton(page, 'Show trends');
    await page.waitForSelector('[data-table="trend-totals"]');
    const rows = await page.$$eval('[data-table="trend-totals"] tbody th', (els) => els.map((el: any) => el.textContent.trim()));
    expect(rows).toEqual([
      'view: events · other',
      'view: events · unknown',
      'view: events · Unknown',
      ...'abcdefg'.split('').map((v) => `view: events · ${v}`),
      'view: events · Other values',
    ]);
    await env.dash.screenshot('insights-breakdown-kinds');
    expect(await seriousA11yViolations(page)).toEqual([]);

    await env.dash.go(`/projects/${env.project}/insights/funnels`);
    await page.waitForSelector('#funnel-step-0-event');
    await page.type('#funnel-step-0-event', 'view');
    await page.type('#funnel-step-1-event', 'signup');
    await setValue(page, '#funnel-from', dayOf(-2));
    await setValue(page, '#funnel-to', dayOf(0));
    await page.select('#funnel-breakdown', 'property');
    await page.type('#funnel-breakdown-property', 'plan');
    await clickButton(page, 'Show funnel');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('figure.funnel').length === 12);
    const captions = await page.$$eval('figure.funnel figcaption', (els) => els.map((el: any) => el.textContent.trim()));
    expect(captions).toEqual(['All users', 'other', 'unknown', 'Unknown', ...'abcdefg', 'Other values']);
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });
});
