/**
 * `npm run demo` (bin/demo.ts, bin/demo/*) against the local server: it creates a project, a key and
 * a running experiment, and sends a made-up shop's events, all over the HTTP API. What it prints is
 * what the API then shows: every event listed once, the Insights trends total of an event equal to
 * the generator's count, the experiment's enrolled and converted users per variant. It waits out
 * 429s (Retry-After) instead of failing, and stops with the API's message on a refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoOptionsFrom } from '../../bin/demo';
import { UsageError } from '../../bin/usage';
import { shopHistory } from '../../bin/demo/data';
import { DemoFailed, runDemo, type DemoOptions } from '../../bin/demo/run';
import { ADMIN_TOKEN, startTestStack, type TestStack } from '../helpers/local';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const NOW = Date.parse('2026-11-20T18:00:00.000Z');
const options = (lines: string[], more: Partial<DemoOptions> = {}): DemoOptions => ({
  baseUrl: stack.url,
  adminToken: ADMIN_TOKEN,
  dashboardUrl: stack.url,
  projectName: 'Demo shop',
  users: 30,
  days: 7,
  experimentUsers: 80,
  seed: 7,
  nowMs: NOW,
  print: (line) => lines.push(line),
  ...more,
});

describe('npm run demo', () => {
  it('fills a new project with the shop’s events and a running experiment whose counts the API shows, and prints where to look', async () => {
    const lines: string[] = [];
    const summary = await runDemo(options(lines));
    const history = shopHistory({ users: 30, days: 7, nowMs: NOW, seed: 7 });
    expect(summary.historyEvents).toBe(history.length);
    const project = `/admin/v1/projects/${summary.projectId}`;

    // Every event sent is stored once.
    const listed = (await stack.admin('GET', `${project}/events?limit=1000`)).body.events as Array<{ name: string }>;
    expect(listed).toHaveLength(summary.historyEvents + summary.experimentEvents);

    // Insights count what was sent: signups per the generator, and $identify linked the visitors.
    const signups = history.filter((e) => e.name === 'signup').length;
    expect(signups).toBeGreaterThan(5);
    const trends = await stack.admin('POST', `${project}/insights/trends`, {
      series: [{ event: 'signup' }],
      date_from: '2026-11-14',
      date_to: '2026-11-20',
      compare: false,
    });
    expect(trends.status, JSON.stringify(trends.body)).toBe(200);
    expect(trends.body.result.lines[0].total).toBe(signups);
    const identified = (
      await stack.admin('GET', `${project}/users/demo-anon-${history.find((e) => e.name === '$identify')!.user_id.slice('demo-user-'.length)}`)
    ).body;
    expect(identified.email).toMatch(/^demo-user-\d+@example\.com$/);

    // The experiment's results: each variant's users enrolled, its buyers converted.
    const results = (await stack.admin('GET', `${project}/experiments/${summary.experimentId}/results`)).body;
    for (const [variant, counts] of Object.entries(summary.variants)) {
      expect(results.variants.find((v: { variant: string }) => v.variant === variant)).toMatchObject({ enrolled: counts.users, converted: counts.purchases });
    }
    expect(summary.variants.control!.users + summary.variants.treatment!.users).toBe(80);
    expect(results.metrics.map((m: { name: string }) => m.name)).toEqual(['purchase', 'Revenue', 'Checkout errors']);

    // The printed summary: progress, the totals, and the dashboard pages of this project.
    expect(lines).toContain(`Sending 30 visitors' history over 7 days (${history.length} events)`);
    expect(lines.some((l) => /^ {2}history: [\d,]+ of [\d,]+ events sent \(100 %\)$/.test(l))).toBe(true);
    const done = lines.find((l) => l.startsWith('Done in '))!;
    expect(done).toContain(`${new Intl.NumberFormat('en-US').format(summary.historyEvents + summary.experimentEvents)} events in`);
    expect(done).toContain(`control: ${summary.variants.control!.purchases} of ${summary.variants.control!.users} bought`);
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^ {2}Results: +${stack.url}/#/projects/${summary.projectId}/experiments/${summary.experimentId}/results$`, 'm')),
    );
  });

  it('spreads enrollment over the days since the history began, saves a trend, a funnel and a retention table, and prints links that open them', async () => {
    const lines: string[] = [];
    const summary = await runDemo(options(lines, { projectName: 'Demo spread' }));
    const project = `/admin/v1/projects/${summary.projectId}`;

    // Started on the history's first day (7 days up to NOW: 2026-11-14), enrollment spread over the days since.
    const experiment = (await stack.admin('GET', `${project}/experiments/${summary.experimentId}`)).body;
    expect(experiment.started_at).toBe('2026-11-14T00:00:00.000Z');
    expect(lines).toContain(`Experiment "Checkout button" created and started on 2026-11-14: ${summary.experimentId}`);
    const results = (await stack.admin('GET', `${project}/experiments/${summary.experimentId}/results`)).body;
    const enrolledByDay = results.series.map((p: { variants: Array<{ enrolled: number }> }) => p.variants.reduce((a, v) => a + v.enrolled, 0));
    // Daily points from the start's day; every day up to NOW adds users (80 over 6.75 days: about 12 a day).
    const days = enrolledByDay.slice(0, 7);
    expect(days).toHaveLength(7);
    for (let d = 1; d < days.length; d++) expect(days[d]).toBeGreaterThan(days[d - 1]);
    expect(days[0]).toBeGreaterThan(0);
    expect(enrolledByDay.at(-1)).toBe(80);

    // The saved insights: returned with their IDs (for a later step), listed by the API, each runnable.
    expect(summary.savedInsights.map((i) => [i.name, i.kind])).toEqual([
      ['Daily shoppers', 'trends'],
      ['View to purchase', 'funnels'],
      ['Visitors coming back', 'retention'],
    ]);
    const listed = (await stack.admin('GET', `${project}/saved-insights`)).body.saved_insights as Array<{
      id: string;
      problem: string | null;
      definition: unknown;
    }>;
    expect(listed.map((i) => i.id).sort()).toEqual(summary.savedInsights.map((i) => i.id).sort());
    expect(listed.every((i) => i.problem === null)).toBe(true);
    for (const insight of summary.savedInsights) {
      expect(insight.definition).toMatchObject({ date_from: '2026-11-14', date_to: '2026-11-20' });
      const ran = await stack.admin('POST', `${project}/insights/${insight.kind}`, insight.definition);
      expect(ran.status, JSON.stringify(ran.body)).toBe(200);
    }
    const shoppers = (await stack.admin('POST', `${project}/insights/trends`, summary.savedInsights[0]!.definition)).body.result;
    expect(shoppers.lines[0].total).toBeGreaterThan(0);

    // Each printed link opens its insight's page with the saved definition in it.
    for (const insight of summary.savedInsights) {
      const line = lines.flatMap((l) => l.split('\n')).find((l) => l.startsWith(`  ${insight.name}:`))!;
      const link = new URL(line.split(/\s+/).at(-1)!);
      expect(`${link.origin}`).toBe(stack.url);
      const [route, query] = link.hash.slice(1).split('?');
      expect(route).toBe(`/projects/${summary.projectId}/insights/${insight.kind}`);
      expect(JSON.parse(new URLSearchParams(query).get('d')!)).toEqual(insight.definition);
      expect(new URLSearchParams(query).get('s')).toBe(insight.id);
    }
    // The dashboard of the saved insights, each as a tile, and its link.
    const dashboard = (await stack.admin('GET', `${project}/dashboards/${summary.dashboardId}`)).body;
    expect(dashboard.name).toBe('Shop overview');
    expect(dashboard.tiles.map((t: { saved_insight_id: string }) => t.saved_insight_id)).toEqual(summary.savedInsights.map((i) => i.id));
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`^ {2}Dashboard: +${stack.url}/#/projects/${summary.projectId}/dashboards/${summary.dashboardId}$`, 'm')),
    );
    // Every number printed has thousands separators (IDs, dates and links aside).
    const numbers = lines.join('\n').replace(/https?:\/\/\S+|[0-9a-f]{8}-[0-9a-f-]{27}|\d{4}-\d{2}-\d{2}|tally_\S+/g, '');
    expect(numbers).not.toMatch(/\d{4}/);
  });

  it('makes the same events from the same seed, and other events from another', () => {
    const a = shopHistory({ users: 20, days: 5, nowMs: NOW, seed: 3 });
    expect(shopHistory({ users: 20, days: 5, nowMs: NOW, seed: 3 })).toEqual(a);
    expect(shopHistory({ users: 20, days: 5, nowMs: NOW, seed: 4 })).not.toEqual(a);
    // Nothing after "now", nothing before the first day, and every visitor's events in time order.
    expect(a.every((e) => Date.parse(e.timestamp) <= NOW && Date.parse(e.timestamp) >= Date.parse('2026-11-16T00:00:00.000Z'))).toBe(true);
  });

  it('waits out 429s with their Retry-After and still sends everything', async () => {
    // A stack whose clock moves only while the demo waits: the key's bucket refills exactly as much as the waits say.
    let now = NOW + 3_600_000;
    const throttled = await startTestStack({ clock: () => now });
    try {
      const project = (await throttled.admin('POST', '/admin/v1/projects', { name: 'Demo throttled' })).body.id as string;
      const created = (await throttled.admin('POST', `/admin/v1/projects/${project}/keys`, { plan: 'enterprise', rate_limit_per_minute: 30 })).body;
      const lines: string[] = [];
      const waits: number[] = [];
      const small = { users: 8, days: 3, experimentUsers: 6 };
      const events = shopHistory({ ...small, nowMs: NOW, seed: 7 }).length;
      const summary = await runDemo({
        ...options(lines, { ...small, projectId: project, key: created.key, batchSize: 1 }),
        baseUrl: throttled.url,
        sleep: async (ms) => {
          waits.push(ms);
          now += ms;
        },
      });
      // A bucket of 30 that refills one request every 2 s: each request past the 30th waits 2 s once.
      const keyRequests = events + 1 + summary.experimentEvents;
      expect(summary.rateLimited).toBe(keyRequests - 30);
      expect(waits).toEqual(Array(keyRequests - 30).fill(2000));
      const listed = (await throttled.admin('GET', `/admin/v1/projects/${project}/events?limit=1000`)).body.events;
      expect(listed).toHaveLength(summary.historyEvents + summary.experimentEvents);
      expect(lines.find((l) => l.startsWith('Done in '))).toContain(`(${summary.rateLimited} waited out a 429)`);
    } finally {
      await throttled.stop();
    }
  });

  it('stops with the API’s message when it is refused, and says what is wrong with its options', async () => {
    await expect(runDemo(options([], { adminToken: 'not-the-admin-token-000' }))).rejects.toThrow(DemoFailed);
    await expect(runDemo(options([], { adminToken: 'not-the-admin-token-000' }))).rejects.toThrow(/^POST \/admin\/v1\/projects answered 401: /);
    await expect(demoOptionsFrom(['--users', '0'], { TALLY_ADMIN_TOKEN: 'x' })).rejects.toThrow('--users must be a whole number from 1 to 100,000, got "0".');
    await expect(demoOptionsFrom(['https://api.example.com'], { TALLY_ADMIN_TOKEN: 'x' })).rejects.toThrow(UsageError);
    await expect(demoOptionsFrom([], { TALLY_DATA_DIR: '/nonexistent-tally-dir' })).rejects.toThrow(
      'No admin token: set TALLY_ADMIN_TOKEN, or run npm start first (it keeps its token in /nonexistent-tally-dir/admin-token).',
    );
    // A local server on another port (TALLY_PORT) is local too: it serves its own dashboard.
    for (const url of ['http://127.0.0.1:3001', 'http://localhost:4000/', 'http://[::1]:3000']) {
      expect(await demoOptionsFrom([url], { TALLY_ADMIN_TOKEN: 'x' })).toMatchObject({ baseUrl: url, dashboardUrl: url });
    }
    await expect(demoOptionsFrom(['https://127.0.0.1.example.com:3001'], { TALLY_ADMIN_TOKEN: 'x' })).rejects.toThrow(/pass --dashboard/);
    expect(await demoOptionsFrom([], { TALLY_ADMIN_TOKEN: 'x' })).toMatchObject({
      baseUrl: 'http://127.0.0.1:3000',
      users: 500,
      days: 28,
      experimentUsers: 1000,
      seed: 1,
    });
  });
});
