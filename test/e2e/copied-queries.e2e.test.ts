/**
 * What a person copies runs: the query each page shows under "How this was computed" (the results'
 * `computation.query`, each insight's `sql`) runs unchanged in a DuckDB that has read the data
 * directory's views.sql (what `duckdb -init <data dir>/views.sql` does), and gives the figures the page
 * states: the results' enrolled and converted per variant, and exactly the rows each insight's page was
 * shaped from. On AWS the same texts run on Athena over the Glue tables; their grammar is checked by
 * test/unit/athena-sql-grammar.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDuckDb, type TestDuckDb } from '../helpers/duckdb';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;
let now = Date.parse('2026-04-10T08:00:00.000Z');
let duck: TestDuckDb;

/** A fresh DuckDB connection with only the data directory's views.sql run, as `duckdb -init` would; counts as numbers. */
async function runCopied(sql: string): Promise<Array<Record<string, unknown>>> {
  const rows = await duck.rows(sql, readFileSync(stack.analystViews, 'utf8'));
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v])));
}

beforeAll(async () => {
  duck = await testDuckDb();
  ({ stack, project, key } = await startTestProject('copied queries', { clock: () => now }));
  const base = `/admin/v1/projects/${project}/experiments`;
  const created = await stack.admin('POST', base, { name: 'Copy me', goal_event: 'purchase', variants: ['control', 'treatment'] });
  expect((await stack.admin('POST', `${base}/${created.body.id}/start`)).status).toBe(200);
  now = Date.parse('2026-04-12T20:00:00.000Z');
  const events: unknown[] = [];
  for (let i = 0; i < 30; i++) {
    const variant = i % 2 === 0 ? 'control' : 'treatment';
    const day = `2026-04-${String(10 + (i % 3)).padStart(2, '0')}`;
    events.push({ name: 'install', user_id: `u${i}`, timestamp: `${day}T09:00:00Z` });
    events.push({
      name: '$experiment_exposure',
      user_id: `u${i}`,
      timestamp: `${day}T09:01:00Z`,
      properties: { $experiment_name: 'Copy me', $variant: variant },
    });
    if (i % 3 !== 0) events.push({ name: 'open', user_id: `u${i}`, timestamp: `2026-04-12T10:${String(i).padStart(2, '0')}:00Z` });
    // Some sign in: the identity stream has links (views.sql's identities view needs a file to exist).
    if (i % 5 === 0) events.push({ name: '$identify', user_id: `user-${i}`, timestamp: `${day}T09:30:00Z`, properties: { $anonymous_id: `u${i}` } });
    if (i % (variant === 'control' ? 4 : 2) === 0)
      events.push({ name: 'purchase', user_id: `u${i}`, timestamp: `${day}T11:00:00Z`, properties: { plan: i % 4 ? 'pro' : 'free' } });
  }
  expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
});
afterAll(async () => {
  duck?.close();
  await stack?.stop();
});

describe('the queries under "How this was computed" run as copied', () => {
  it('results: the counting query gives the page’s enrolled and converted per variant', async () => {
    const base = `/admin/v1/projects/${project}/experiments`;
    const id = (await stack.admin('GET', base)).body.experiments[0].id as string;
    const results = (await stack.admin('POST', `${base}/${id}/results/refresh`)).body;
    expect(results.computation.engine).toBe('duckdb');
    const rows = await runCopied(results.computation.query);
    // The totals are the rows with neither a period (the series) nor a dimension (the breakdowns) and
    // the metric [] (the base slot, not a metric's sums; with CUPED the goal is counted as a metric too), as the page says.
    const totals = rows
      .filter((r) => r.period === null && r.dimension === null && r.metric === '[]')
      .map((r) => ({ variant: r.variant, enrolled: r.enrolled, converted: r.converted }));
    expect(totals.length).toBe(2);
    expect(totals).toEqual(results.variants.map((v: Record<string, unknown>) => ({ variant: v.variant, enrolled: v.enrolled, converted: v.converted })));
    expect(results.variants.map((v: { enrolled: number }) => v.enrolled)).toEqual([15, 15]);
  });

  for (const [kind, definition] of [
    [
      'trends',
      {
        series: [{ event: 'purchase' }, { event: 'purchase', measure: 'users' }],
        breakdown: 'property',
        breakdown_property: 'plan',
        compare: true,
        date_from: '2026-04-08',
        date_to: '2026-04-12',
      },
    ],
    ['funnels', { steps: [{ event: 'install' }, { event: 'open' }, { event: 'purchase' }], date_from: '2026-04-08', date_to: '2026-04-12' }],
    ['retention', { start_event: 'install', return_event: 'open', date_from: '2026-04-08', date_to: '2026-04-12' }],
  ] as const) {
    it(`${kind}: the shown SQL gives exactly the rows the page’s figures were shaped from`, async () => {
      const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/${kind}`, definition);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.engine).toBe('duckdb');
      const stored = JSON.parse(readFileSync(join(stack.dataDir, 'insight-results', `${res.body.query_id}.json`), 'utf8')) as unknown[];
      expect(stored.length).toBeGreaterThan(0);
      expect(await runCopied(res.body.sql)).toEqual(stored);
    });
  }

  // Last: it moves the project into another time zone.
  it('in a project time zone: the shown SQL names the zone and gives the rows of the local hours', async () => {
    const patched = await stack.admin('PATCH', `/admin/v1/projects/${project}`, { time_zone: 'Asia/Kolkata' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, {
      series: [{ event: 'purchase' }],
      interval: 'hour',
      date_from: '2026-04-10',
      date_to: '2026-04-12',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.sql).toContain("AT TIME ZONE 'Asia/Kolkata'");
    const stored = JSON.parse(readFileSync(join(stack.dataDir, 'insight-results', `${res.body.query_id}.json`), 'utf8')) as unknown[];
    expect(await runCopied(res.body.sql)).toEqual(stored);
    // The purchases at 11:00 UTC are at 16:30 local: the 16:00 local hour, which starts at 10:30 UTC.
    expect(stored).toContainEqual(expect.objectContaining({ bucket: '2026-04-10T10:30Z', period: 'current' }));
    expect(res.body.result.buckets[16]).toBe('2026-04-10T16:00+05:30');
  });
});
