/**
 * The analyst views: the local DuckDB script (<data dir>/views.sql, written by npm start) and the
 * Athena view's text, one source (lambdas/adapters/sql/unique-events.sql). Over landing files holding
 * copies of events, events (and unique_events, the same rows) has every event once, the first copy,
 * and again after compaction, from the curated partitions.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analystViewsScript, DuckDbAnalyticsViews } from '../../lambdas/adapters/duckdb-analyst-views';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { landingHourDir } from '../../lambdas/adapters/duckdb-stream-views';
import { readRows as readRowsBig } from '../../lambdas/adapters/duckdb-results-query';
import { renderCreateUniqueEventsView } from '../../lambdas/adapters/sql/unique-events';
import type { StoredEvent } from '../../lambdas/domain/event';
import { dataColumns, EVENT_COLUMNS, IDENTITY_COLUMNS, PARTITION_COLUMNS } from '../../lib/raw-columns';
import { startTestStack } from '../helpers/local';
import { storedEventFixture } from '../helpers/stored-event';
import { compactClosedHours, writeLanding, writeLandingEvents } from '../helpers/landing';

const event = (i: number, received: string, overrides: Partial<StoredEvent> = {}) =>
  storedEventFixture({
    project_id: 'p1',
    dedupe_key: `k${i}`,
    name: i % 2 ? 'purchase' : 'page_view',
    user_id: `u${i}`,
    sent_user_id: `u${i}`,
    timestamp: `2026-03-0${1 + (i % 3)}T10:00:00.000Z`,
    received_at: received,
    properties: { plan: i % 2 ? 'pro' : 'free' },
    ...overrides,
  });

/** Rows with DuckDB's BIGINT counts as numbers. */
const readRows = async (connection: DuckDBConnection, sql: string) =>
  (await readRowsBig(connection, sql)).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));

/** A stream with no file yet. */
const NOTHING = { landing: false, curated: false, compactedThrough: undefined };

let dataDir: string;
let db: DuckDBInstance;
let connection: DuckDBConnection;
const views = () => new DuckDbAnalyticsViews(dataDir);

/** A fresh session over views.sql as DuckDbAnalyticsViews writes it now (as `duckdb -init views.sql` opens it). */
async function openViews(): Promise<void> {
  await views().create();
  connection?.closeSync();
  connection = await db.connect();
  await connection.run(readFileSync(views().file, 'utf8'));
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "tally-views-o'dir-"));
  const first = Array.from({ length: 6 }, (_, i) => event(i, `2026-03-0${1 + (i % 3)}T10:00:01.000Z`));
  writeLandingEvents(dataDir, first, { file: 'a.ndjson' });
  // k1 again 40 s later with other properties (a resend stored after a crash), k2 twice more.
  writeLandingEvents(
    dataDir,
    [event(1, '2026-03-02T10:00:41.000Z', { properties: { plan: 'enterprise' } }), event(2, '2026-03-03T10:00:40.000Z'), event(2, '2026-03-03T10:00:01.000Z')],
    { file: 'b.ndjson' },
  );
  // A line that is not JSON and one without a project, in a landing file with a good line around them:
  // they stay in landing, and no view, query or compaction fails on them.
  const odd = join(landingHourDir(dataDir, 'events', '2026-03-02-10'), 'c.ndjson');
  appendFileSync(odd, 'not JSON at all\n{"name":"orphan","dedupe_key":"k-orphan","timestamp":"2026-03-02T10:00:00.000Z"}\n');
  writeLanding(
    dataDir,
    'identities',
    [{ project_id: 'p1', id: 'u1', canonical_id: 'u0', version: 1, timestamp: '2026-03-01T00:00:00.000Z', reason: 'identify' }],
    {
      hour: '2026-03-01-00',
    },
  );
  db = await DuckDBInstance.create(':memory:');
  await openViews();
});
afterAll(() => {
  connection?.closeSync();
  db?.closeSync();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('views.sql (DuckDB, local)', () => {
  const k1 = "SELECT received_at, json_extract_scalar(properties, '$.plan') AS plan FROM events WHERE dedupe_key = 'k1'";
  const perDay = `SELECT dt, count(*) AS events, count(DISTINCT user_id) AS users FROM unique_events
       WHERE project_id = 'p1' AND dt BETWEEN '2026-03-01' AND '2026-03-31' GROUP BY dt ORDER BY dt`;
  const perDayExpected = [
    { dt: '2026-03-01', events: 2, users: 2 },
    { dt: '2026-03-02', events: 2, users: 2 },
    { dt: '2026-03-03', events: 2, users: 2 },
  ];

  it('has every event once in events (and unique_events, the same rows): the copy received first', async () => {
    expect(await readRows(connection, "SELECT count(*) AS n FROM events WHERE project_id = 'p1'")).toEqual([{ n: 6 }]);
    expect(await readRows(connection, "SELECT count(*) AS n FROM unique_events WHERE project_id = 'p1'")).toEqual([{ n: 6 }]);
    expect(await readRows(connection, k1)).toEqual([{ received_at: '2026-03-02T10:00:01.000Z', plan: 'pro' }]);
    expect(await readRows(connection, "SELECT received_at FROM unique_events WHERE dedupe_key = 'k2'")).toEqual([{ received_at: '2026-03-03T10:00:01.000Z' }]);
    // The landing table keeps every line delivered: the project's nine, and the two odd ones (no project).
    expect(await readRows(connection, "SELECT count(*) AS n FROM landing_events WHERE project_id = 'p1'")).toEqual([{ n: 9 }]);
    expect(await readRows(connection, 'SELECT count(*) AS n FROM landing_events WHERE project_id IS NULL')).toEqual([{ n: 2 }]);
  });

  it('runs the data model’s queries unchanged on the view (partition filters, json_extract_scalar)', async () => {
    expect(await readRows(connection, perDay)).toEqual(perDayExpected);
    expect(await readRows(connection, "SELECT canonical_id FROM identities WHERE project_id = 'p1' AND id = 'u1'")).toEqual([{ canonical_id: 'u0' }]);
  });

  it('after compaction (views.sql written again): the same events, each once, from the curated partitions; the odd lines stay in landing', async () => {
    const before = await readRows(connection, "SELECT * FROM events WHERE project_id = 'p1' ORDER BY dedupe_key");
    const duckdb = new InProcessDuckDb();
    try {
      const [events, identities] = await compactClosedHours(dataDir, duckdb, Date.parse('2026-03-04T00:00:00.000Z'), () => views().create());
      // Every hour closed by then (the odd lines are left out: they name no project).
      expect(events).toMatchObject({ compactedThrough: '2026-03-03-22', partitions: 3, rows: 6 });
      expect(identities).toMatchObject({ rows: 1 });
    } finally {
      await duckdb.close();
    }
    await openViews();
    expect(readFileSync(views().file, 'utf8')).toContain("arrival_hour > '2026-03-03-22'");
    expect(await readRows(connection, 'SELECT count(*) AS n FROM curated_events')).toEqual([{ n: 6 }]);
    expect(await readRows(connection, "SELECT * FROM events WHERE project_id = 'p1' ORDER BY dedupe_key")).toEqual(before);
    expect(await readRows(connection, "SELECT count(*) AS n FROM unique_events WHERE project_id = 'p1'")).toEqual([{ n: 6 }]);
    expect(await readRows(connection, k1)).toEqual([{ received_at: '2026-03-02T10:00:01.000Z', plan: 'pro' }]);
    expect(await readRows(connection, perDay)).toEqual(perDayExpected);
    expect(await readRows(connection, "SELECT canonical_id FROM identities WHERE project_id = 'p1' AND id = 'u1'")).toEqual([{ canonical_id: 'u0' }]);
    expect(readFileSync(join(landingHourDir(dataDir, 'events', '2026-03-02-10'), 'c.ndjson'), 'utf8')).toContain('not JSON at all');
  });

  it('has the Glue events table’s columns, in its order (data columns, then project_id and dt)', async () => {
    const columns = (await readRows(connection, 'DESCRIBE unique_events')).map((r) => r.column_name);
    expect(columns).toEqual([...dataColumns(EVENT_COLUMNS), ...PARTITION_COLUMNS]);
    expect((await readRows(connection, 'DESCRIBE events')).map((r) => r.column_name)).toEqual(columns);
  });

  it('is written by the local server into its data directory, naming it', async () => {
    const stack = await startTestStack();
    try {
      expect(stack.analystViews).toBe(join(stack.dataDir, 'views.sql'));
      expect(existsSync(stack.analystViews)).toBe(true);
      expect(readFileSync(stack.analystViews, 'utf8')).toBe(analystViewsScript(stack.dataDir, { events: NOTHING, identities: NOTHING }));
    } finally {
      await stack.stop();
    }
  });

  it('runs before any event and before any identity link (a project that never identifies), and follows the first of each', async () => {
    const stack = await startTestStack();
    const run = async (sql: string) => {
      const instance = await DuckDBInstance.create(':memory:');
      const session = await instance.connect();
      try {
        await session.run(readFileSync(stack.analystViews, 'utf8'));
        return await readRows(session, sql);
      } finally {
        session.closeSync();
        instance.closeSync();
      }
    };
    // A query over both tables, as the results' "How this was computed" joins them.
    const joined = `SELECT count(*) AS events, count(i.id) AS linked FROM unique_events e LEFT JOIN identities i ON i.id = e.user_id AND i.project_id = e.project_id`;
    try {
      expect(await run(joined)).toEqual([{ events: 0, linked: 0 }]);
      const identityColumns = [...dataColumns(IDENTITY_COLUMNS), ...PARTITION_COLUMNS];
      expect((await run('DESCRIBE identities')).map((r) => r.column_name)).toEqual(identityColumns);

      const project = await stack.createProject();
      const key = await stack.createKey(project);
      expect((await stack.post('/v1/events', key, { events: [{ name: 'opened', user_id: 'anon-1' }] })).status).toBe(204);
      await until(async () => (await run(joined))[0]?.events === 1);
      expect(await run(joined)).toEqual([{ events: 1, linked: 0 }]);

      const identify = { name: '$identify', user_id: 'user-1', properties: { $anonymous_id: 'anon-1' } };
      expect((await stack.post('/v1/events', key, { events: [identify] })).status).toBe(204);
      await until(async () => Number((await run('SELECT count(*) AS n FROM identities'))[0]?.n) > 0);
      expect(await run("SELECT count(*) AS n FROM identities WHERE id = 'user-1' AND canonical_id = 'anon-1'")).toEqual([{ n: 1 }]);
      expect((await run('DESCRIBE identities')).map((r) => r.column_name)).toEqual(identityColumns);
    } finally {
      await stack.stop();
    }
  });
});

/** Waits (up to 10 s) for the server's rewrite of views.sql after a stream's first delivery. */
async function until(check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('views.sql did not follow the new files within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the Athena view (the same text)', () => {
  it('creates <database>.unique_events as <database>.events (which holds each event once), without DuckDB-only syntax', () => {
    const sql = renderCreateUniqueEventsView('tally.unique_events', 'tally.events');
    expect(sql).toMatch(/^CREATE OR REPLACE VIEW tally\.unique_events AS\nSELECT\n/);
    expect(sql).toMatch(/\nFROM tally\.events$/);
    expect(sql).not.toMatch(/--|::|->>|EXCLUDE|copy_rank/);
  });
});
