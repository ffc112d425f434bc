/**
 * The planning calculator with CUPED's reduction measured from the project's history
 * (docs/decisions/cuped.md "Planning"), in real Chromium against the local server: 150 users whose
 * page views in the last 14 days follow their page views in the 14 days before. The answer says
 * what CUPED would remove and what it is worth (ρ² and 1 / (1 − ρ²) computed here from the seed),
 * the plan uses it (sampleSize with it), the reduction field shows it as its placeholder, and a typed
 * reduction wins. Screenshot: test-output/dashboard/planning-cuped-form.png.
 */
import type { Page } from 'puppeteer-core';
import { expect, it } from 'vitest';
import { sampleSize } from '../../lambdas/domain/sample-size';
import { describeBrowser } from '../helpers/browser';
import { squaredCorrelation } from '../helpers/squared-correlation';
import { clickButton, problemsApartFrom, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

const text = (page: Page, selector: string) => page.$eval(selector, (el) => (el as any).innerText as string);
const fmt = (n: number) => n.toLocaleString('en-US');
const DAY = 86_400_000;
const USERS = 150;

/** User i's page views before the look-back (x) and in it (y): y follows x, plus a little noise. */
const before = (i: number) => i % 6;
const after = (i: number) => (i % 6) + ((i * 7) % 5);

/** ρ² of x and y over the users, in plain TS. */
function rho2(): number {
  const xs = Array.from({ length: USERS }, (_, i) => before(i));
  const ys = Array.from({ length: USERS }, (_, i) => after(i));
  return squaredCorrelation(xs, ys);
}

describeBrowser("dashboard: planning with CUPED's reduction measured from the project's history", () => {
  const env = useDashboardProject('dashboard planning cuped', {
    beforeOpen: async ({ stack, key }) => {
      const now = Date.now();
      const events: Array<{ name: string; user_id: string; timestamp: string }> = [];
      for (let i = 0; i < USERS; i++) {
        const user = `user-${i}`;
        // In the 14 days before the look-back (20 to 15 days ago), and in it (13 days to 1 hour ago).
        for (let k = 0; k < before(i); k++)
          events.push({ name: 'page_view', user_id: user, timestamp: new Date(now - 20 * DAY + k * 3_600_000).toISOString() });
        for (let k = 0; k < after(i); k++) events.push({ name: 'page_view', user_id: user, timestamp: new Date(now - 13 * DAY + k * 3_600_000).toISOString() });
        events.push({ name: 'session_start', user_id: user, timestamp: new Date(now - 3_600_000).toISOString() });
      }
      for (let i = 0; i < events.length; i += 1000) {
        const res = await stack.post('/v1/events', key, { events: events.slice(i, i + 1000) });
        expect(res.status, res.text).toBe(204);
      }
    },
  });

  it('says what CUPED would remove and what it is worth, plans with it, and a typed reduction wins', async () => {
    const r = rho2();
    expect(r).toBeGreaterThan(0.3);
    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/new`);
    await page.waitForSelector('#experiment-name');
    await page.type('#experiment-goal', 'page_view');
    await page.select('#plan-kind', 'count');
    await clickButton(page, 'Calculate');
    await page.waitForSelector('.plan-answer');
    const answer = await text(page, '.plan-answer');
    expect(answer).toContain(
      `Measured from your last 14 days: CUPED would remove ~${Math.round(r * 100)}% of the variance (like ${(1 / (1 - r)).toFixed(1)}× the users), over ${USERS} users. The plan uses it.`,
    );
    // The plan is sampleSize's with the measured reduction: the baseline is the seed's own.
    const ys = Array.from({ length: USERS }, (_, i) => after(i));
    const mean = ys.reduce((a, b) => a + b, 0) / USERS;
    const variance = ys.reduce((a, y) => a + (y - mean) ** 2, 0) / (USERS - 1);
    const expected = sampleSize({ metric: { kind: 'mean', mean, variance }, mde: 0.05, variance_reduction: r })!;
    expect(answer).toContain(`Needs ${fmt(expected.users_total)} users`);
    expect(await page.$eval('#plan-reduction', (el) => (el as any).placeholder)).toBe(`${Math.round(r * 100)} (measured)`);
    await page.$eval('.planning-field', (el) => (el as any).scrollIntoView());
    await env.dash.screenshot('planning-cuped-form');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // A typed reduction is planned with instead; the measured one is still stated.
    await page.type('#plan-reduction', '10');
    await clickButton(page, 'Calculate');
    await page.waitForSelector('.plan-answer');
    const typed = await text(page, '.plan-answer');
    expect(typed).toContain('The plan uses the reduction you typed instead.');
    const withTyped = sampleSize({ metric: { kind: 'mean', mean, variance }, mde: 0.05, variance_reduction: 0.1 })!;
    expect(typed).toContain(`Needs ${fmt(withTyped.users_total)} users`);
    expect(problemsApartFrom(env.dash.problems, 404)).toEqual([]);
  });
});
