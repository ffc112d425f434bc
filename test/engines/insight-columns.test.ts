/**
 * The columns each insight kind's text makes the engine read from the curated Parquet (docs/decisions/
 * columnar-events.md, "timestamp_minute"): what Athena bills is the columns a query references, so
 * the rendered text itself is run by DuckDB with its profiler on, over partitions the compaction job
 * wrote, and the READ_PARQUET scans' columns are checked. A trend reads each event's minute, never
 * its timestamp (3 bytes an event against 0.4), nor received_at, nor properties unless its definition
 * uses one; funnels and retention, which order events by their timestamp, read it and not the minute
 * besides. The trend's answer is checked too (the other kinds' answers: test/e2e/insights-*.e2e.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbInsightEngine } from '../../lambdas/adapters/duckdb-insights';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { streamViews } from '../../lambdas/adapters/duckdb-stream-views';
import { quoteLiteral } from '../../lambdas/adapters/sql/render';
import { INSIGHT_KINDS, type InsightKindName } from '../../lambdas/domain/insights/kinds';
import { startTestProject, type TestStack } from '../helpers/local';
import { parquetColumnsRead } from '../helpers/parquet-columns-read';

let stack: TestStack;
let project: string;
const duck = new InProcessDuckDb();

beforeAll(async () => {
  let now = Date.parse('2026-03-10T12:00:00.000Z');
  ({ stack, project } = await startTestProject('insight columns', { clock: () => now }));
  const key = await stack.createKey(project);
  const events = ['2026-03-02', '2026-03-03'].flatMap((day) =>
    ['u1', 'u2'].flatMap((user) => [
      { name: 'signup', user_id: user, timestamp: `${day}T09:00:00.000Z`, platform: 'ios' },
      { name: 'page_view', user_id: user, timestamp: `${day}T10:00:00.000Z`, platform: 'ios', properties: { plan: 'pro', amount: 2 } },
      { name: 'purchase', user_id: user, timestamp: `${day}T11:00:00.000Z`, platform: 'ios' },
    ]),
  );
  expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
  now += 3 * 3_600_000;
  await stack.compaction.runNow(now);
});
afterAll(async () => {
  await stack?.stop();
  await duck.close();
});

/** The rendered text's rows, and the columns its Parquet scans read. */
async function profiled(kind: InsightKindName, definition: unknown) {
  const engine = new DuckDbInsightEngine(stack.dataDir);
  const prepared = engine.prepare(kind, INSIGHT_KINDS[kind].definition.parse(definition), {
    projectId: project,
    projectCreatedAt: '2026-03-01T00:00:00.000Z',
    dataThrough: '2026-03-10T15:00:00.000Z',
    timeZone: 'Europe/Berlin',
  });
  const views = [
    ...(await streamViews(stack.dataDir, 'events', { projectId: project, fromDt: prepared.fromDt, toDt: prepared.toDt })),
    ...(await streamViews(stack.dataDir, 'identities', { projectId: project })),
  ];
  const profileFile = join(stack.dataDir, `profile-${kind}.json`);
  const rows = await duck.use(views, async (session) => {
    await session.rows(`PRAGMA enable_profiling = 'json'`);
    await session.rows(`PRAGMA profiling_output = ${quoteLiteral(profileFile)}`);
    return session.rows(prepared.sql);
  });
  return { rows, read: parquetColumnsRead(JSON.parse(readFileSync(profileFile, 'utf8'))).events };
}

describe("the curated columns an insight's text reads", () => {
  it('a trend: the minute, not the timestamp, received_at or properties', async () => {
    const { rows, read } = await profiled('trends', {
      series: [{ event: 'page_view' }],
      date_from: '2026-03-02',
      date_to: '2026-03-03',
      breakdown: 'platform',
    });
    expect([...read].sort()).toEqual(['name', 'platform', 'sent_user_id', 'timestamp_minute']);
    const days = rows.filter((r) => r.period === 'current' && r.bucket !== null).map((r) => [r.bucket, Number(r.events), Number(r.users)]);
    expect(days).toEqual([
      ['2026-03-02', 2, 2],
      ['2026-03-03', 2, 2],
    ]);
  });

  it('a trend of a property: properties too', async () => {
    const { read } = await profiled('trends', {
      series: [{ event: 'page_view', measure: 'sum', property: 'amount' }],
      date_from: '2026-03-02',
      date_to: '2026-03-03',
    });
    expect([...read].sort()).toEqual(['name', 'properties', 'sent_user_id', 'timestamp_minute']);
  });

  it('a funnel and a retention table: the timestamp they order events by, not the minute besides', async () => {
    const funnel = await profiled('funnels', { steps: [{ event: 'signup' }, { event: 'purchase' }], date_from: '2026-03-02', date_to: '2026-03-03' });
    expect([...funnel.read].sort()).toEqual(['name', 'sent_user_id', 'timestamp']);
    const retention = await profiled('retention', { start_event: 'signup', return_event: 'page_view', date_from: '2026-03-02', date_to: '2026-03-03' });
    expect([...retention.read].sort()).toEqual(['name', 'sent_user_id', 'timestamp']);
    expect(funnel.rows.length).toBeGreaterThan(0);
    expect(retention.rows.length).toBeGreaterThan(0);
  });
});
