/**
 * Insights over a partly compacted layout (docs/decisions/columnar-events.md, "Measured"): each kind
 * reads the events view as its two parts, the curated Parquet (without the watermark filter: every
 * curated event was received before it) and the landing tail (with it). The counts are the view's:
 * curated events, plus the tail's events received by the query's watermark, and none of the tail's
 * events received after it. The server's clock is moved back for the queries, so the tail holds
 * events received after the watermark, as the last minutes before an Athena watermark are.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogDir, readCompactionState } from '../../lambdas/adapters/duckdb-stream-views';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

let now = Date.parse('2026-04-15T10:00:00.000Z');
let stack: TestStack;
let project: string;
let key: string;

const event = (name: string, user_id: string, timestamp: string, properties?: Record<string, unknown>) => ({
  name,
  user_id,
  timestamp,
  ...(properties ? { properties } : {}),
});
const send = async (at: string, events: unknown[]) => {
  now = Date.parse(at);
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
};

beforeAll(async () => {
  stack = await startTestStack({ clock: () => now });
  project = await stack.createProject('curated and tail');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
  // Received at 10:00, landing hour 2026-04-15-10: compacted below.
  await send('2026-04-15T10:00:00.000Z', [
    event('signup', 'a', '2026-04-14T10:00:00Z'),
    event('signup', 'b', '2026-04-14T10:00:00Z'),
    event('signup', 'c', '2026-04-14T10:00:00Z'),
    event('purchase', 'a', '2026-04-14T11:00:00Z', { amount: 5 }),
  ]);
  await stack.compaction.runNow(Date.parse('2026-04-15T12:00:00.000Z'));
  // The landing tail (hour 2026-04-15-12): one batch received before the queries' watermark, one after.
  await send('2026-04-15T12:00:00.100Z', [event('signup', 'd', '2026-04-14T10:00:00Z'), event('purchase', 'b', '2026-04-14T12:00:00Z', { amount: 7 })]);
  await send('2026-04-15T12:00:00.400Z', [event('signup', 'e', '2026-04-14T10:00:00Z'), event('purchase', 'c', '2026-04-14T12:00:00Z', { amount: 100 })]);
  // The queries run at 12:00:00.300: their watermark is between the two tail batches.
  now = Date.parse('2026-04-15T12:00:00.300Z');
});
afterAll(() => stack?.stop());

const RANGE = { date_from: '2026-04-14', date_to: '2026-04-14' };
const insight = (kind: string, body: unknown) => stack.admin('POST', `/admin/v1/projects/${project}/insights/${kind}`, body);

describe('insights over curated events and a landing tail received partly after the watermark', () => {
  it('the first batch is curated and the other two are in the tail', async () => {
    expect((await readCompactionState(stack.dataDir, 'events')).compactedThrough).toBe('2026-04-15-10');
    expect(readdirSync(catalogDir(stack.dataDir, 'events'))).toEqual([`project_id=${project}`]);
    expect(stack.rawEvents(project)).toHaveLength(8);
  });

  it('trends count the curated events and the tail received by the watermark, with and without a property', async () => {
    const res = await insight('trends', {
      series: [{ event: 'signup' }, { event: 'signup', measure: 'users' }, { event: 'purchase', measure: 'sum', property: 'amount' }],
      ...RANGE,
      compare: false,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data_through).toBe('2026-04-15T12:00:00.300Z');
    // a, b, c curated and d in the tail; e received after the watermark. 5 + 7; c's 100 after it.
    expect(res.body.result.lines.map((l: { total: number }) => l.total)).toEqual([4, 4, 12]);
    // The watermark filter is the tail's only.
    expect(res.body.sql.match(/received_at/g)).toHaveLength(1);

    const counts = await insight('trends', { series: [{ event: 'signup' }, { event: 'purchase' }], ...RANGE, compare: false, breakdown: 'platform' });
    expect(counts.status, JSON.stringify(counts.body)).toBe(200);
    expect(counts.body.result.lines.map((l: { total: number }) => l.total)).toEqual([4, 2]);
    // No property used: the text reads none.
    expect(counts.body.sql).toContain('CAST(NULL AS varchar) AS properties');
  });

  it('funnels and retention count the same events', async () => {
    const funnel = await insight('funnels', { steps: [{ event: 'signup' }, { event: 'purchase' }], ...RANGE });
    expect(funnel.status, JSON.stringify(funnel.body)).toBe(200);
    expect(funnel.body.result.groups[0].steps.map((s: { users: number }) => s.users)).toEqual([4, 2]);

    const retention = await insight('retention', { start_event: 'signup', return_event: 'purchase', ...RANGE });
    expect(retention.status, JSON.stringify(retention.body)).toBe(200);
    expect(
      retention.body.result.cohorts.map((c: { cohort: string; users: number; periods: Array<{ users: number }> }) => [
        c.cohort,
        c.users,
        c.periods.map((p) => p.users),
      ]),
    ).toEqual([['2026-04-14', 4, [2]]]);
  });
});
