/**
 * The planning calculator in the experiment form and the progress toward the planned sample on the
 * results page (issue 22, "Planning"), in real Chromium against the local server: the calculator,
 * prefilled with the form's goal event, variants and weights, plans from the project's own events
 * (hand-counted: 3 of 10 users purchased) as sampleSize does; with no events it says what to type and
 * plans from what is typed; "Use as planned sample" saves planned_users with the experiment; the
 * results page shows "N of M users (x%), about D days left". Screenshots in
 * test-output/dashboard/planning-*.png at 1280 and 375 px.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { minimumDetectableEffect, sampleSize } from '../../lambdas/domain/sample-size';
import { formatPercent, formatPoints, formatRelative } from '../../dashboard/src/results/format-stats';
import { describeBrowser } from '../helpers/browser';
import { seededResults, seededSeries } from '../helpers/seeded-results';
import { clickButton, openDashboard, problemsApartFrom, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const fmt = (n: number) => n.toLocaleString('en-US');

describeBrowser('dashboard: planning calculator and progress toward the planned sample (issue 22)', () => {
  const env = useDashboardProject('dashboard planning', {
    beforeOpen: async ({ stack, key }) => {
      // 10 active users in the last day, 3 of them purchased.
      const at = new Date(Date.now() - 3_600_000).toISOString();
      const events = Array.from({ length: 10 }, (_, i) => ({ name: 'page_viewed', user_id: `user-${i}`, timestamp: at }));
      for (const i of [0, 1, 2]) events.push({ name: 'purchase', user_id: `user-${i}`, timestamp: at });
      const res = await stack.post('/v1/events', key, { events });
      expect(res.status, res.text).toBe(204);
    },
  });
  const base = () => `/admin/v1/projects/${env.project}/experiments`;

  it("plans from the project's events with the form's variants and weights, and saves the plan as planned_users", async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/new`);
    await page.waitForSelector('#experiment-name');
    await page.type('#experiment-name', 'Checkout plan');
    await page.type('#experiment-goal', 'purchase');
    // A 80/20 split.
    await page.click('input[name="equal_split"]');
    await page.$eval('#weight-0', (el) => ((el as any).value = ''));
    await page.type('#weight-0', '80');
    await page.$eval('#weight-1', (el) => ((el as any).value = ''));
    await page.type('#weight-1', '20');
    expect(await page.$eval('#plan-event', (el) => (el as any).placeholder)).toBe('purchase');
    expect(await text(page, '.planned-users')).toContain('No planned sample');

    await clickButton(page, 'Calculate');
    await page.waitForSelector('.plan-answer');
    const expected = sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.3 }, mde: 0.05, weights: [80, 20] })!;
    const answer = await text(page, '.plan-answer');
    expect(answer).toContain('Today: 30% of users send purchase (10 active users in the last 14 days)');
    expect(answer).toContain(
      `Needs ${fmt(expected.users_total)} users (control ${fmt(expected.users_per_variant[0]!)}, treatment ${fmt(expected.users_per_variant[1]!)})`,
    );
    expect(answer).toMatch(/about [\d,]+ days at that rate/);
    await env.dash.screenshot('planning-form');

    await clickButton(page, `Use as planned sample (${fmt(expected.users_total)} users)`);
    expect(await text(page, '.planned-users')).toContain(`Planned sample: ${fmt(expected.users_total)} users`);
    await clickButton(page, 'Save');
    await page.waitForFunction(() => (globalThis as any).location.hash.match(/experiments\/[0-9a-f-]{36}$/));
    const id = (await page.evaluate(() => (globalThis as any).location.hash as string)).split('/').pop()!;
    const saved = (await env.stack.admin('GET', `${base()}/${id}`)).body;
    expect(saved).toMatchObject({ planned_users: expected.users_total, weights: [80, 20], goal_event: 'purchase' });
    await page.waitForFunction(
      (total) => (globalThis as any).document.querySelector('.planned-users')?.innerText.includes(total),
      {},
      fmt(expected.users_total),
    );
    expect(await seriousA11yViolations(page)).toEqual([]);
  });

  it('plans with an expected CUPED variance reduction: fewer users, and says so', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/new`);
    await page.waitForSelector('#experiment-name');
    await page.type('#experiment-goal', 'purchase');
    await page.type('#plan-reduction', '37.5');
    await clickButton(page, 'Calculate');
    await page.waitForSelector('.plan-answer');
    const expected = sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.3 }, mde: 0.05, variance_reduction: 0.375 })!;
    const plain = sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.3 }, mde: 0.05 })!;
    expect(expected.users_total).toBeLessThan(plain.users_total * 0.63);
    const answer = await text(page, '.plan-answer');
    expect(answer).toContain(`Needs ${fmt(expected.users_total)} users`);
    expect(answer).toContain('With CUPED removing 37.5% of the variance.');
    // Cleared again for the next test (the form keeps what was typed).
    await page.click('#plan-reduction', { count: 3 });
    await page.keyboard.press('Backspace');
  });

  it('says what to type when the events give no baseline, and plans from what is typed', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/new`);
    await page.waitForSelector('#plan-event');
    await page.type('#plan-event', 'never_sent');
    await clickButton(page, 'Calculate');
    await page.waitForSelector('.planning-error');
    expect(await text(page, '.planning-error')).toMatch(/none of the 10 active users sent the event.*Send baseline\.rate/);
    // The override opens by itself.
    await page.waitForSelector('#plan-rate');
    await page.type('#plan-rate', '10');
    await page.type('#plan-users-per-day', '200');
    // Enter in a calculator field calculates; it does not submit the experiment form around it.
    await page.keyboard.press('Enter');
    await page.waitForSelector('.plan-answer');
    expect(await page.$('p.error[role="alert"]')).toBeNull();
    expect(await page.evaluate(() => (globalThis as any).location.hash as string)).toMatch(/\/experiments\/new$/);
    const expected = sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.1 }, mde: 0.05, users_per_day: 200 })!;
    const answer = await text(page, '.plan-answer');
    expect(answer).toContain('Today: 10% of users send never_sent (as typed); about 200 users a day (as typed).');
    expect(answer).toContain(`Needs ${fmt(expected.users_total)} users`);
    expect(answer).toContain(`about ${fmt(expected.days!)} days at that rate`);

    const small = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await small.go(`/projects/${env.project}/experiments/new`);
    await small.page.waitForSelector('#experiment-goal');
    await small.page.type('#experiment-goal', 'purchase');
    await clickButton(small.page, 'Calculate');
    await small.page.waitForSelector('.plan-answer');
    expect(await small.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    expect(await seriousA11yViolations(small.page)).toEqual([]);
    await small.page.$eval('.planning-field', (el) => (el as any).scrollIntoView());
    await small.screenshot('planning-form');
    expect(problemsApartFrom(small.problems, 404)).toEqual([]);
    await small.page.close();
    expect(problemsApartFrom(env.dash.problems, 404, 422)).toEqual([]);
  });

  it('answers "what change could I detect in N weeks" with the same statistics, and sizing for that change gives back the weeks', async () => {
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/new`);
    await page.waitForSelector('#experiment-goal');
    await page.type('#experiment-goal', 'purchase');
    await page.click('input[name="plan_question"][value="detectable_effect"]');
    await page.waitForSelector('#plan-weeks');
    expect(await page.$('#plan-mde')).toBeNull();
    await page.$eval('#plan-weeks', (el) => ((el as any).value = ''));
    await page.type('#plan-weeks', '3');
    if (!(await page.$eval('input[name="plan_override"]', (el) => (el as any).checked as boolean))) await page.click('input[name="plan_override"]');
    await page.waitForSelector('#plan-rate');
    for (const [selector, value] of [
      ['#plan-rate', '10'],
      ['#plan-users-per-day', '2000'],
    ]) {
      await page.$eval(selector!, (el) => ((el as any).value = ''));
      await page.type(selector!, value!);
    }
    await clickButton(page, 'Calculate');
    await page.waitForSelector('.plan-answer');
    const mde = minimumDetectableEffect({ metric: { kind: 'conversion', baseline_rate: 0.1 }, users_total: 42_000, max_mde: 10, sequential: true })!;
    const answer = await text(page, '.plan-answer');
    expect(answer).toContain(
      `In 3 weeks (21 days), about 42,000 users (control 21,000, treatment 21,000) can detect a change of ${formatRelative(mde)} or more (${formatPoints(0.1 * mde)}: from 10% to ${formatPercent(0.1 * (1 + mde))}), with 80% power.`,
    );
    // The round trip: sizing for that change takes the 3 weeks.
    expect(sampleSize({ metric: { kind: 'conversion', baseline_rate: 0.1 }, mde, users_per_day: 2000 })!.days).toBe(21);
    // Bad weeks: the API's message, naming the field.
    await page.$eval('#plan-weeks', (el) => ((el as any).value = ''));
    await page.type('#plan-weeks', '60');
    await clickButton(page, 'Calculate');
    await page.waitForSelector('.planning-error');
    expect(await text(page, '.planning-error')).toMatch(/weeks must be from 1 to 52/);
    await page.$eval('#plan-weeks', (el) => ((el as any).value = ''));
    await page.type('#plan-weeks', '3');
    await clickButton(page, 'Calculate');
    await page.waitForSelector('.plan-answer');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.$eval('.planning-field', (el) => (el as any).scrollIntoView());
    await env.dash.screenshot('planning-detectable-effect');
    expect(problemsApartFrom(env.dash.problems, 400, 404, 422)).toEqual([]);
  });

  it('shows progress toward the planned sample on the results page', async () => {
    const { page } = env.dash;
    const created = await env.stack.admin('POST', base(), {
      name: 'Progress',
      goal_event: 'purchase',
      variants: ['control', 'treatment'],
      planned_users: 4000,
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await env.stack.admin('POST', `${base()}/${id}/start`);
    // 2,000 users enrolled over 2 days: 1,000 a day, 2,000 to go.
    const to = new Date().toISOString();
    const window = { from: new Date(Date.parse(to) - 2 * 86_400_000).toISOString(), to };
    const counts = [
      { variant: 'control', enrolled: 1000, converted: 100 },
      { variant: 'treatment', enrolled: 1000, converted: 110 },
    ];
    const results = seededResults(id, window, counts, { series: seededSeries(window, counts) });
    await env.stack.deps.results.put(env.project, results);
    await env.dash.go(`/projects/${env.project}/experiments/${id}/results`);
    await page.waitForSelector('.sample-progress');
    expect(await text(page, '.sample-progress p')).toBe('Planned sample: 2,000 of 4,000 users (50%), about 2 days left at the current rate (1,000 a day).');
    expect(await page.$eval('.sample-progress progress', (el) => [(el as any).value, (el as any).max])).toEqual([2000, 4000]);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.$eval('.sample-progress', (el) => (el as any).scrollIntoView());
    await env.dash.screenshot('planning-results');

    const small = await openDashboard(env.browser, env.stack.url, { width: 375 });
    await small.go(`/projects/${env.project}/experiments/${id}/results`);
    await small.page.waitForSelector('.sample-progress');
    expect(await small.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await small.page.$eval('.sample-progress', (el) => (el as any).scrollIntoView());
    await small.screenshot('planning-results');
    await small.page.close();

    // No plan: no progress line.
    const plain = await env.stack.admin('POST', base(), { name: 'No plan', goal_event: 'purchase' });
    await env.stack.admin('POST', `${base()}/${plain.body.id}/start`);
    await env.stack.deps.results.put(env.project, { ...results, experiment_id: plain.body.id });
    await env.dash.go(`/projects/${env.project}/experiments/${plain.body.id}/results`);
    await page.waitForSelector('table[data-table="variants"]');
    expect(await page.$('.sample-progress')).toBeNull();
  });
});
