/**
 * The results page of a running experiment whose window the retention cut will reach (a server
 * keeping events 90 days, docs/decisions/retention.md), in real Chromium against the local server:
 * the page says which day goes and when, in the API's words. Screenshot in
 * test-output/dashboard/retention-notice-1280.png.
 */
import { expect, it } from 'vitest';
import { describeBrowser } from '../helpers/browser';
import { seededResults } from '../helpers/seeded-results';
import { problemsApartFrom, seriousA11yViolations, useDashboardProject } from '../helpers/dashboard';

const DAY = 86_400_000;

describeBrowser('dashboard: the retention notice on the results page', () => {
  const env = useDashboardProject('dashboard retention', { keepEventsDays: 90 });

  it('states on the results page which day of the window the retention cut removes, and when', async () => {
    const base = `/admin/v1/projects/${env.project}/experiments`;
    const created = await env.stack.admin('POST', base, { name: 'Long runner', goal_event: 'signup', variants: ['control', 'treatment'], cuped: false });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // Started 85 days ago: its first day goes in 6 days.
    const startedAt = new Date(Date.now() - 85 * DAY).toISOString();
    const started = await env.stack.admin('POST', `${base}/${created.body.id}/start`, { started_at: startedAt });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const counts = [
      { variant: 'control', enrolled: 1000, converted: 100 },
      { variant: 'treatment', enrolled: 1000, converted: 120 },
    ];
    await env.stack.deps.results.put(env.project, seededResults(created.body.id, { from: startedAt, to: new Date().toISOString() }, counts));

    const { page } = env.dash;
    await env.dash.go(`/projects/${env.project}/experiments/${created.body.id}/results`);
    const notice = await page.waitForSelector('#retention-notice');
    const words = await notice!.evaluate((el: any) => el.innerText as string);
    const startDay = startedAt.slice(0, 10);
    const removesOn = new Date(Date.parse(`${startDay}T00:00:00Z`) + 91 * DAY).toISOString().slice(0, 10);
    expect(words).toBe(
      `Events expire. Events are kept for 90 days: on ${removesOn} the retention cut removes the events of ${startDay}, the first day this experiment's results read, and one more day each day after. Insights and queries over the events will no longer see them. These results may still count them through the results job's state (its summary of events already read), but a full recompute would count only the days still kept: stop the experiment before then to keep its results as they are.`,
    );
    await env.dash.screenshot('retention-notice');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(problemsApartFrom(env.dash.problems)).toEqual([]);
  });
});
