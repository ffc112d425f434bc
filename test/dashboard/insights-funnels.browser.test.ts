/**
 * The funnels and retention pages (issue 25) in real Chromium against the local server: the funnel's
 * bars and table with hand-counted users, conversions, drop-off and median times; the retention
 * triangle with each cell's share and users as text; event names rendered as text; a step filter and
 * a property breakdown with hand-counted groups, kept by a reload; a link written before step filters.
 * Screenshots in test-output/dashboard/insights-{funnel,funnel-filter,retention}-<width>.png at 1280
 * and 375 px, insights-funnel-error-1280.png.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import {
  clickButton,
  openDashboard,
  problemsApartFrom,
  seriousA11yViolations,
  setInputValue,
  useDashboardProject,
  type DashboardPage,
} from '../helpers/dashboard';

const DAY = 86_400_000;
const dayOf = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);
const at = (offset: number, time: string) => `${dayOf(offset)}T${time}Z`;
const BUY = '<b>buy</b>';
const PRO = '<b>pro</b>';

describeBrowser('dashboard: funnels and retention (issue 25)', () => {
  const env = useDashboardProject('dashboard insights', {
    beforeOpen: async ({ stack, key }) => {
      const events: unknown[] = [];
      // A funnel: 10 users view, 6 sign up 10 minutes later, 3 of those buy an hour after signing up.
      // The views carry where the user came from (f0-f2 "ad", f3-f8 "mail", f9 none), the purchases a plan
      // (f0 and f1 the text PRO, markup included, f2 "free").
      for (let i = 0; i < 10; i++) {
        const source = i < 3 ? { source: 'ad' } : i < 9 ? { source: 'mail' } : {};
        events.push({ name: 'view', user_id: `f${i}`, timestamp: at(-2, `10:0${i}:00`), properties: source });
        if (i < 6) events.push({ name: 'signup', user_id: `f${i}`, timestamp: at(-2, `10:1${i}:00`) });
        if (i < 3) events.push({ name: BUY, user_id: `f${i}`, timestamp: at(-2, `11:1${i}:00`), properties: { plan: i < 2 ? PRO : 'free' } });
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

  const setValue = setInputValue;

  interface Step {
    event: string;
    where?: { property: string; equals: string };
  }
  const THREE_STEPS: Step[] = [{ event: 'view' }, { event: 'signup' }, { event: BUY }];

  /** Fills the steps' rows (the form starts with two) and the range, then `more`, and shows the funnel. */
  async function showFunnel(dash: DashboardPage, steps: Step[] = THREE_STEPS, more?: (page: Page) => Promise<void>) {
    const { page } = dash;
    await dash.go(`/projects/${env.project}/insights/funnels`);
    await page.waitForSelector('#funnel-step-0-event');
    for (const [i, step] of steps.entries()) {
      if (i >= 2) await clickButton(page, 'Add step');
      await page.waitForSelector(`#funnel-step-${i}-event`);
      await page.type(`#funnel-step-${i}-event`, step.event);
      if (step.where) {
        await clickButton(page, `Filter step ${i + 1}`);
        await page.waitForSelector(`#funnel-step-${i}-property`);
        await page.type(`#funnel-step-${i}-property`, step.where.property);
        await page.type(`#funnel-step-${i}-equals`, step.where.equals);
      }
    }
    await setValue(page, '#funnel-from', dayOf(-3));
    await setValue(page, '#funnel-to', dayOf(-1));
    await more?.(page);
    await clickButton(page, 'Show funnel');
    await page.waitForSelector('figure.funnel');
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
    await clickButton(page, 'Remove step 3');
    await clickButton(page, 'Show funnel');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('.funnel-step').length === 2);
    const stepsShown = () => page.$$eval('.funnel-name', (els) => els.map((el: any) => el.textContent.trim()));
    const stepsInForm = () => page.$$eval('[id^="funnel-step-"][id$="-event"]', (els) => els.map((el: any) => el.value as string).join('\n'));
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

  it('filters a step by a property and breaks down by an event property, names the filters as text, and keeps them in the link', async () => {
    const { page } = env.dash;
    const steps: Step[] = [{ event: 'view' }, { event: 'signup' }, { event: BUY, where: { property: 'plan', equals: PRO } }];
    await showFunnel(env.dash, steps, async (p) => {
      await p.select('#funnel-breakdown', 'property');
      await p.type('#funnel-breakdown-property', 'source');
    });
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('figure.funnel').length === 4);
    // Per group, the users at each step, counted by hand: f0 and f1 bought PRO, f2 bought "free"; views
    // from "mail" are f3-f8 (3 of whom signed up, none bought), from "ad" f0-f2, f9 without a source.
    const groups = () =>
      page.$$eval('figure.funnel', (figs) =>
        figs.map((f: any) => [
          f.querySelector('figcaption').textContent.trim(),
          ...[...f.querySelectorAll('.funnel-users')].map((u: any) => u.textContent.replace(/\s+/g, ' ').trim()),
        ]),
      );
    expect(await groups()).toEqual([
      ['All users', '10 users · 100%', '6 users · 60%', '2 users · 20%'],
      ['mail', '6 users · 100%', '3 users · 50%', '0 users · 0%'],
      ['ad', '3 users · 100%', '3 users · 100%', '2 users · 66.7%'],
      ['Unknown', '1 user · 100%', '0 users · 0%', '0 users · 0%'],
    ]);
    // The filter is in the step's name, its value as text, never markup.
    const names = await page.$$eval('figure.funnel[data-funnel=""] .funnel-name', (els) => els.map((el: any) => el.textContent.trim()));
    expect(names).toEqual(['1. view', '2. signup', `3. ${BUY} where plan = ${PRO}`]);
    expect(await page.$$eval('.funnel b, .how-computed b', (els) => els.length)).toBe(0);
    const how = await page.$eval('.how-computed', (el: any) => el.innerText.replace(/\s+/g, ' ') as string);
    expect(how).toContain(`Steps: “view”, then “signup”, then “${BUY} where plan = ${PRO}”`);
    expect(how).toContain('Breakdown: by the property “source” on the event that started');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await env.dash.screenshot('insights-funnel-filter');

    // Reload: the link brings back the same funnel, its filter and breakdown in the form.
    await page.reload({ waitUntil: 'networkidle0' });
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('figure.funnel').length === 4);
    expect(await groups()).toEqual([
      ['All users', '10 users · 100%', '6 users · 60%', '2 users · 20%'],
      ['mail', '6 users · 100%', '3 users · 50%', '0 users · 0%'],
      ['ad', '3 users · 100%', '3 users · 100%', '2 users · 66.7%'],
      ['Unknown', '1 user · 100%', '0 users · 0%', '0 users · 0%'],
    ]);
    const value = (selector: string) => page.$eval(selector, (el: any) => el.value as string);
    expect(await value('#funnel-step-2-event')).toBe(BUY);
    expect(await value('#funnel-step-2-property')).toBe('plan');
    expect(await value('#funnel-step-2-equals')).toBe(PRO);
    expect(await page.$('#funnel-step-1-property')).toBeNull();
    expect(await value('#funnel-breakdown')).toBe('property');
    expect(await value('#funnel-breakdown-property')).toBe('source');

    // Without the filter, step 3 counts f2's "free" purchase too.
    await clickButton(page, 'Remove step 3 filter');
    await page.select('#funnel-breakdown', '');
    await clickButton(page, 'Show funnel');
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('figure.funnel').length === 1);
    expect(await groups()).toEqual([['All users', '10 users · 100%', '6 users · 60%', '3 users · 30%']]);

    const small = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await showFunnel(small, steps, async (p) => {
      await p.select('#funnel-breakdown', 'property');
      await p.type('#funnel-breakdown-property', 'source');
    });
    await small.page.waitForFunction(() => (globalThis as any).document.querySelectorAll('figure.funnel').length === 4);
    expect(await small.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousA11yViolations(small.page)).toEqual([]);
    await small.screenshot('insights-funnel-filter');
    expect(problemsApartFrom(small.problems)).toEqual([]);
    await small.page.close();
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });

  it('opens a link written before steps had filters: the steps and breakdown in the form, and the funnel', async () => {
    const { page } = env.dash;
    const old = {
      steps: [{ event: 'view' }, { event: 'signup' }],
      date_from: dayOf(-3),
      date_to: dayOf(-1),
      conversion_window_days: 14,
      breakdown: 'platform',
    };
    await env.dash.go(`/projects/${env.project}/insights/funnels?d=${encodeURIComponent(JSON.stringify(old))}`);
    await page.waitForSelector('figure.funnel');
    expect(await page.$$eval('figure.funnel[data-funnel=""] .funnel-users', (els) => els.map((el: any) => el.textContent.trim()))).toEqual([
      '10 users · 100%',
      '6 users · 60%',
    ]);
    const value = (selector: string) => page.$eval(selector, (el: any) => el.value as string);
    expect([await value('#funnel-step-0-event'), await value('#funnel-step-1-event')]).toEqual(['view', 'signup']);
    expect(await page.$('#funnel-step-0-property')).toBeNull();
    expect(await value('#funnel-breakdown')).toBe('platform');
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

  // Last: the 400 it provokes stays in the page's problems.
  it("shows the API's message for a step's filter beside that field", async () => {
    const { page } = env.dash;
    await showFunnel(env.dash, [{ event: 'view' }, { event: 'signup' }]);
    // A filter without its property: the API's message beside that field, in the label's words.
    await clickButton(page, 'Filter step 2');
    await page.type('#funnel-step-1-equals', 'x');
    await clickButton(page, 'Show funnel');
    await page.waitForSelector('#funnel-step-1-property-error');
    expect(await page.$eval('#funnel-step-1-property-error', (el: any) => el.textContent.trim())).toBe('Property must not be empty');
    expect(await page.$eval('#funnel-step-1-property', (el: any) => el.getAttribute('aria-invalid'))).toBe('true');
    expect(await page.$('p.error[role="alert"]')).toBeNull();
    expect(await seriousA11yViolations(page)).toEqual([]);
    await env.dash.screenshot('insights-funnel-error');
    expect(problemsApartFrom(env.dash.problems, 400)).toEqual([]);
  });
});
