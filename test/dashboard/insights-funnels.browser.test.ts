/**
 * The funnels and retention pages (issue 25) in real Chromium against the local server: the funnel's
 * bars and table with hand-counted users, conversions, drop-off and median times; the retention
 * triangle with each cell's share and users as text; event names rendered as text. Screenshots in
 * test-output/dashboard/insights-{funnel,retention}-<width>.png at 1280 and 375 px.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { clickButton, openDashboard, problemsApartFrom, seriousA11yViolations, useDashboardProject, type DashboardPage } from '../helpers/dashboard';

const DAY = 86_400_000;
const dayOf = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);
const at = (offset: number, time: string) => `${dayOf(offset)}T${time}Z`;
const BUY = '<b>buy</b>';

describeBrowser('dashboard: funnels and retention (issue 25)', () => {
  const env = useDashboardProject('dashboard insights', {
    beforeOpen: async ({ stack, key }) => {
      const events: unknown[] = [];
      // A funnel: 10 users view, 6 sign up 10 minutes later, 3 of those buy an hour after signing up.
      for (let i = 0; i < 10; i++) {
        events.push({ name: 'view', user_id: `f${i}`, timestamp: at(-2, `10:0${i}:00`) });
        if (i < 6) events.push({ name: 'signup', user_id: `f${i}`, timestamp: at(-2, `10:1${i}:00`) });
        if (i < 3) events.push({ name: BUY, user_id: `f${i}`, timestamp: at(-2, `11:1${i}:00`) });
      }
      // Retention: 4 users install 3 days ago, 3 of them open 2 days ago, 1 of them yesterday; 2 install 2 days ago, 1 opens yesterday.
      for (let i = 0; i < 4; i++) events.push({ name: 'install', user_id: `r${i}`, timestamp: at(-3, '09:00:00') });
      for (let i = 0; i < 3; i++) events.push({ name: 'open', user_id: `r${i}`, timestamp: at(-2, '09:00:00') });
      events.push({ name: 'open', user_id: 'r0', timestamp: at(-1, '09:00:00') });
      for (let i = 4; i < 6; i++) events.push({ name: 'install', user_id: `r${i}`, timestamp: at(-2, '12:00:00') });
      events.push({ name: 'open', user_id: 'r4', timestamp: at(-1, '12:00:00') });
      const res = await stack.post('/v1/events', key, { events });
      expect(res.status, res.text).toBe(204);
    },
  });

  const setValue = (page: Page, selector: string, value: string) => page.$eval(selector, (el, v) => ((el as any).value = v), value);

  async function showFunnel(dash: DashboardPage) {
    await dash.go(`/projects/${env.project}/insights/funnels`);
    await dash.page.waitForSelector('#funnel-steps');
    await dash.page.type('#funnel-steps', `view\nsignup\n${BUY}`);
    await setValue(dash.page, '#funnel-from', dayOf(-3));
    await setValue(dash.page, '#funnel-to', dayOf(-1));
    await clickButton(dash.page, 'Show funnel');
    await dash.page.waitForSelector('figure.funnel');
  }

  async function showRetention(dash: DashboardPage) {
    await dash.go(`/projects/${env.project}/insights/retention`);
    await dash.page.waitForSelector('#retention-start');
    await dash.page.type('#retention-start', 'install');
    await dash.page.type('#retention-return', 'open');
    await setValue(dash.page, '#retention-from', dayOf(-3));
    await setValue(dash.page, '#retention-to', dayOf(-1));
    await clickButton(dash.page, 'Show retention');
    await dash.page.waitForSelector('table.retention');
  }

  it('shows a funnel as bars with users, conversion, drop-off and median time, and the same numbers in a table', async () => {
    const { page } = env.dash;
    await showFunnel(env.dash);
    const steps = await page.$$eval('.funnel-step', (els) => els.map((el: any) => el.innerText.replace(/\s+/g, ' ').trim()));
    expect(steps).toEqual([
      '1. view 10 users · 100%',
      '2. signup 6 users · 60% 60% of the step before · 4 dropped off · median 10 min',
      `3. ${BUY} 3 users · 30% 50% of the step before · 3 dropped off · median 1 h`,
    ]);
    // The bars' lengths follow the users: 100%, 60%, 30% of the track.
    const widths = await page.$$eval('.funnel-bar', (els) =>
      els.map((el: any) => el.getBoundingClientRect().width / el.parentElement.getBoundingClientRect().width),
    );
    expect(widths.map((w) => Math.round(w * 100))).toEqual([100, 60, 30]);
    // The event name is text, never markup.
    expect(await page.$$eval('.funnel b', (els) => els.length)).toBe(0);
    // The way back to the Insights page, as on Trends.
    expect(await page.$eval('.breadcrumb a', (a: any) => a.getAttribute('href'))).toBe(`#/projects/${env.project}/insights`);
    await page.click('figure.funnel details summary');
    const rows = await page.$$eval('table[data-table="funnel"] tbody tr', (trs) => trs.map((tr: any) => [...tr.cells].map((c: any) => c.textContent.trim())));
    expect(rows).toEqual([
      ['1. view', '10', '100%', '100%', '0', '–'],
      ['2. signup', '6', '60%', '60%', '4', '10 min'],
      [`3. ${BUY}`, '3', '30%', '50%', '3', '1 h'],
    ]);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await env.dash.screenshot('insights-funnel');

    const small = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await showFunnel(small);
    expect(await small.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousA11yViolations(small.page)).toEqual([]);
    await small.page.$eval('figure.funnel', (el) => (el as any).scrollIntoView());
    await small.screenshot('insights-funnel');
    expect(problemsApartFrom(small.problems)).toEqual([]);
    await small.page.close();
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });

  it('follows navigations while open: a pasted link and back show that link’s funnel in the form and the figure', async () => {
    const { page } = env.dash;
    await showFunnel(env.dash);
    const threeSteps = await page.evaluate(() => (globalThis as any).location.hash as string);
    // Run a 2-step funnel from the form: the page's own hash write replaces the address.
    await page.$eval('#funnel-steps', (el: any) => (el.value = 'view\nsignup'));
    await clickButton(page, 'Show funnel');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.funnel-step').length === 2);
    const stepsShown = () => page.$$eval('.funnel-name', (els) => els.map((el: any) => el.textContent.trim()));
    const stepsInForm = () => page.$eval('#funnel-steps', (el: any) => el.value as string);
    // A pasted link (a new history entry) to the 3-step funnel.
    await page.evaluate((h) => ((globalThis as any).location.hash = h), threeSteps);
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.funnel-step').length === 3);
    expect(await stepsShown()).toEqual(['1. view', '2. signup', `3. ${BUY}`]);
    expect(await stepsInForm()).toBe(`view\nsignup\n${BUY}`);
    // Back: the 2-step funnel again.
    await page.goBack();
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.funnel-step').length === 2);
    expect(await stepsInForm()).toBe('view\nsignup');
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });

  it('shows retention as a curve over all cohorts and a triangle: a row per cohort, each cell its share and users as text, shaded by the share', async () => {
    const { page } = env.dash;
    await showRetention(env.dash);
    const rows = await page.$$eval('table.retention tbody tr', (trs) =>
      trs.map((tr: any) => [...tr.cells].map((c: any) => c.innerText.replace(/\s+/g, ' ').trim())),
    );
    expect(rows).toEqual([
      [dayOf(-3), '4', '0% 0', '75% 3', '25% 1'],
      [dayOf(-2), '2', '0% 0', '50% 1', ''],
    ]);
    expect(await page.$$eval('table.retention thead th', (ths) => ths.map((th: any) => th.textContent.trim()))).toEqual([
      'Cohort',
      'Users',
      'Day 0',
      'Day 1',
      'Day 2',
    ]);
    expect(await page.$eval('table.retention tbody tr td:nth-child(4)', (td: any) => td.className)).toContain('shade-8');
    // The curve pools the cohorts that reached each day: day 1 is 3 + 1 of 4 + 2 users, day 2 only the first cohort's 1 of 4.
    expect(await page.$$eval('[data-chart="retention"] canvas', (c) => c.length)).toBe(1);
    expect(await page.$$eval('.retention-curve-numbers li', (lis) => lis.map((li: any) => li.textContent.trim()))).toEqual([
      'Day 0: 0% (0 of 6 users)',
      'Day 1: 66.7% (4 of 6 users)',
      'Day 2: 25% (1 of 4 users)',
    ]);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await env.dash.screenshot('insights-retention');

    const small = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await showRetention(small);
    expect(await seriousA11yViolations(small.page)).toEqual([]);
    await small.page.$eval('table.retention', (el) => (el as any).scrollIntoView());
    await small.screenshot('insights-retention');
    expect(problemsApartFrom(small.problems)).toEqual([]);
    await small.page.close();
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });
});
