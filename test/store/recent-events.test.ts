/**
 * The recent-events listing over the events view: DuckDB over the landing NDJSON files as the local
 * Firehose endpoint (and the S3 bucket) lays them out, and again over the curated Parquet partitions
 * after compaction (the same answers); and the SQL Athena gets.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AthenaRecentEvents } from '../../lambdas/adapters/athena-recent-events';
import { DuckDbRecentEvents } from '../../lambdas/adapters/duckdb-recent-events';
import type { StoredEvent } from '../../lambdas/domain/event';
import { storedEventFixture } from '../helpers/stored-event';
import { landedDataDir, writeLandingEvents } from '../helpers/landing';

const DAY = 86_400_000;
const now = Date.UTC(2026, 5, 30, 12);

function stored(projectId: string, i: number, overrides: Partial<StoredEvent> = {}): StoredEvent {
  const ts = now - i * 60_000;
  return storedEventFixture({
    project_id: projectId,
    dedupe_key: `k${String(i).padStart(6, '0')}`,
    name: 'view',
    user_id: `u${i % 100}`,
    sent_user_id: `u${i % 100}`,
    timestamp: new Date(ts).toISOString(),
    received_at: new Date(ts + 1000).toISOString(),
    properties: { i },
    ...overrides,
  });
}

/** Writes events into the landing hours of their received_at (<dataDir>/landing/events/arrival_hour=<hour>/), several files per hour. */
function write(dataDir: string, events: StoredEvent[]) {
  events.forEach((e, i) => writeLandingEvents(dataDir, [e], { file: `part-${i % 3}.ndjson` }));
}

/** 30,000 events of one project over about three weeks, the filtered ones the oldest. */
const MANY = 30_000;

// Project "copies": e0..e4 a minute apart; e1 has three copies (a crash between the stream write
// and the commit, and the resend stored again), the later ones with other details.
const copy = (i: number, receivedSecondsLater: number, overrides: Partial<StoredEvent> = {}) =>
  stored('copies', i, { received_at: new Date(now - i * 60_000 + 1000 + receivedSecondsLater * 1000).toISOString(), ...overrides });

/** Every project's events; the landing files are the same whichever way they are then read. */
function writeFixtures(dataDir: string) {
  const events = Array.from({ length: MANY }, (_, i) => stored('big', i));
  events.push(stored('big', MANY, { name: 'rare', user_id: 'canonical-ann', sent_user_id: 'ann-device' }));
  events.push(stored('big', MANY + 1, { name: 'rare', user_id: 'bo', sent_user_id: 'bo' }));
  // Received before the window (31 days ago): not listed, whatever its timestamp.
  events.push(stored('big', 0, { dedupe_key: 'old', name: 'rare', received_at: new Date(now - 31 * DAY).toISOString() }));
  // Sent late: an old timestamp, received today (listed: the window is by receipt, whatever the event day).
  events.push(stored('big', 0, { dedupe_key: 'late', name: 'late', timestamp: '2025-01-01T00:00:00.000Z', received_at: new Date(now).toISOString() }));
  events.push(stored('other', 1, { name: 'rare', user_id: "o'brien", sent_user_id: "o'brien" }));
  write(dataDir, events);
  write(dataDir, [
    copy(1, 40, { user_id: 'merged-later', properties: { attempt: 3 } }),
    ...[0, 1, 2, 3, 4].map((i) => copy(i, 0)),
    copy(1, 35, { properties: { attempt: 2 } }),
  ]);
  // Project "crowded": ten copies of each of the three newest events: the first 2 x limit candidates hold one event.
  write(
    dataDir,
    [0, 1, 2, 3].flatMap((i) =>
      Array.from({ length: i < 3 ? 10 : 1 }, (_, c) => stored('crowded', i, { received_at: new Date(now - i * 60_000 + 1000 + c).toISOString() })),
    ),
  );
  // Project "named-copies": three copies of one event.
  write(
    dataDir,
    [0, 1, 2].map((c) => stored('named-copies', 5, { name: 'signup', received_at: new Date(now + c).toISOString() })),
  );
}

describe.each(['landing', 'curated'] as const)('DuckDbRecentEvents (read from %s)', (read) => {
  let dataDir: string;
  let listing: DuckDbRecentEvents;

  beforeAll(async () => {
    // From curated: every landing hour compacted (an hour after the last arrival), the listing reads Parquet only.
    dataDir = await landedDataDir('tally-recent-', read, writeFixtures, now);
    listing = new DuckDbRecentEvents(dataDir, { windowDays: 30 });
  });
  afterAll(async () => {
    await listing.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists the newest events first, 100 by default in the handler, as stored events', async () => {
    const events = await listing.recent('big', { limit: 3 }, now);
    expect(events.map((e) => e.dedupe_key)).toEqual(['k000000', 'k000001', 'k000002']);
    expect(events[0]).toEqual(stored('big', 0));
  });

  it('finds matching events however far back they are in the window (30,000 newer events in front of them)', async () => {
    const rare = await listing.recent('big', { limit: 10, name: 'rare' }, now);
    expect(rare.map((e) => e.user_id)).toEqual(['canonical-ann', 'bo']);
    // user_id matches the canonical ID or the ID as sent.
    expect((await listing.recent('big', { limit: 10, userIds: ['ann-device'] }, now)).map((e) => e.name)).toEqual(['rare']);
    expect((await listing.recent('big', { limit: 10, userIds: ['canonical-ann'], name: 'rare' }, now)).map((e) => e.sent_user_id)).toEqual(['ann-device']);
    expect(await listing.recent('big', { limit: 10, userIds: ['canonical-ann'], name: 'view' }, now)).toEqual([]);
  });

  it('reads every partition: an event received in the window with an old timestamp is listed, last', async () => {
    const late = await listing.recent('big', { limit: 1000, name: 'late' }, now);
    expect(late.map((e) => e.timestamp)).toEqual(['2025-01-01T00:00:00.000Z']);
  });

  it('lists an event the files hold several times once: the copy received first, in any file order', async () => {
    const listed = await listing.recent('copies', { limit: 10 }, now);
    expect(listed.map((e) => e.dedupe_key)).toEqual(['k000000', 'k000001', 'k000002', 'k000003', 'k000004']);
    expect(listed[1]).toEqual(copy(1, 0));
    // The event is its first copy, in landing as once compacted (where only that copy is stored): a
    // filter only a later copy passes finds nothing, and a filter the first copy passes finds it once.
    expect(await listing.recent('copies', { limit: 10, userIds: ['merged-later'] }, now)).toEqual([]);
    expect(await listing.recent('copies', { limit: 10, userIds: [copy(1, 0).user_id!] }, now)).toContainEqual(copy(1, 0));
    expect((await listing.recent('copies', { limit: 10, userIds: [copy(1, 0).user_id!] }, now)).filter((e) => e.dedupe_key === 'k000001')).toHaveLength(1);
    expect((await listing.recent('copies', { limit: 2 }, now)).map((e) => e.dedupe_key)).toEqual(['k000000', 'k000001']);
  });

  it('still lists the newest events exactly when most of the newest rows are copies (the second, unbounded query)', async () => {
    const listed = await listing.recent('crowded', { limit: 3 }, now);
    expect(listed.map((e) => e.dedupe_key)).toEqual(['k000000', 'k000001', 'k000002']);
    expect(listed.map((e) => e.received_at)).toEqual([0, 1, 2].map((i) => new Date(now - i * 60_000 + 1000).toISOString()));
  });

  it('names the window’s events with their counts (copies once), the most events first, per project', async () => {
    // "big": 30,000 views, 2 rare in the window (the third was received before it), 1 late.
    expect(await listing.names('big', 10, now)).toEqual([
      { name: 'view', events: MANY, last_seen: stored('big', 0).timestamp },
      { name: 'rare', events: 2, last_seen: stored('big', MANY).timestamp },
      { name: 'late', events: 1, last_seen: '2025-01-01T00:00:00.000Z' },
    ]);
    expect((await listing.names('big', 2, now)).map((n) => n.name)).toEqual(['view', 'rare']);
    expect(await listing.names('other', 10, now)).toEqual([{ name: 'rare', events: 1, last_seen: stored('other', 1).timestamp }]);
    expect(await listing.names('none', 10, now)).toEqual([]);
    // Three copies of one event count once.
    expect(await listing.names('named-copies', 10, now)).toEqual([{ name: 'signup', events: 1, last_seen: stored('named-copies', 5).timestamp }]);
  });

  it('returns up to the limit (max 1000), one project only, and nothing for a project without events', async () => {
    expect(await listing.recent('big', { limit: 1000 }, now)).toHaveLength(1000);
    expect((await listing.recent('other', { limit: 10 }, now)).map((e) => e.user_id)).toEqual(["o'brien"]);
    expect((await listing.recent('other', { limit: 10, userIds: ["o'brien"] }, now)).map((e) => e.name)).toEqual(['rare']);
    expect(await listing.recent('none', { limit: 10 }, now)).toEqual([]);
  });
});

describe('AthenaRecentEvents', () => {
  it('reads the latest partitions of the project only, with the same query text, and turns rows into stored events', async () => {
    const sent: string[] = [];
    const row = Object.fromEntries(Object.entries(stored('p', 0)).map(([k, v]) => [k, v === null ? undefined : typeof v === 'object' ? JSON.stringify(v) : v]));
    const athena = {
      eventsTable: 'tally.events',
      run: async (sql: string) => {
        sent.push(sql);
        return { rows: [row], execution: {} };
      },
    };
    const recent = new AthenaRecentEvents(athena, { windowDays: 30, maxWaitMs: 25_000 });
    expect(await recent.recent('p', { limit: 5, userIds: ["it's"], name: 'view' }, now)).toEqual([stored('p', 0)]);
    expect(sent[0]).toContain('FROM tally.events');
    expect(sent[0]).toContain("project_id = 'p'");
    expect(sent[0]).toContain("dt >= '2026-05-31'");
    expect(sent[0]).toContain("received_at >= '2026-05-31T12:00:00.000Z'");
    expect(sent[0]).toContain("(user_id IN ('it''s') OR sent_user_id IN ('it''s'))");
    expect(sent[0]).toMatch(/ORDER BY "timestamp" DESC.*\nLIMIT 5$/);
    // The copies of an event are numbered among the 10 newest matching rows and the first kept.
    expect(sent[0]).toContain(
      'row_number() OVER ( PARTITION BY project_id, dt, dedupe_key ORDER BY received_at, event_id NULLS LAST, user_id NULLS LAST ) AS copy_rank',
    );
    expect(sent[0]).toMatch(/LIMIT 10\n\s*\) matching\n\) copies\nWHERE copy_rank = 1\n/);
    expect(sent).toHaveLength(1);
  });

  it('names the events of the same partitions, each event once, and turns rows into counts', async () => {
    const sent: string[] = [];
    const athena = {
      eventsTable: 'tally.events',
      run: async (sql: string) => {
        sent.push(sql);
        return { rows: [{ name: 'view', events: '12', last_seen: '2026-06-30T11:00:00.000Z' }], execution: {} };
      },
    };
    const recent = new AthenaRecentEvents(athena, { windowDays: 30, maxWaitMs: 25_000 });
    expect(await recent.names("it's", 50, now)).toEqual([{ name: 'view', events: 12, last_seen: '2026-06-30T11:00:00.000Z' }]);
    expect(sent[0]).toBe(recent.namesSql("it's", 50, now));
    expect(sent[0]).toContain('FROM tally.events');
    expect(sent[0]).toContain("project_id = 'it''s'");
    expect(sent[0]).toContain("dt >= '2026-05-31'");
    expect(sent[0]).toContain("received_at >= '2026-05-31T12:00:00.000Z'");
    expect(sent[0]).toMatch(/WHERE copy_rank = 1\nGROUP BY name\nORDER BY events DESC, name\nLIMIT 50$/);
  });

  it('asks again without the candidate bound only when the candidates held fewer events than the limit', async () => {
    const sent: string[] = [];
    const row = (i: number) => ({
      ...Object.fromEntries(Object.entries(stored('p', i)).map(([k, v]) => [k, typeof v === 'object' && v ? JSON.stringify(v) : (v ?? undefined)])),
      candidates: '10',
    });
    const athena = {
      eventsTable: 'tally.events',
      run: async (sql: string) => {
        sent.push(sql);
        return { rows: sent.length === 1 ? [row(0), row(1)] : [row(0), row(1), row(2), row(3), row(4)], execution: {} };
      },
    };
    const recent = new AthenaRecentEvents(athena, { windowDays: 30, maxWaitMs: 25_000 });
    expect((await recent.recent('p', { limit: 5 }, now)).map((e) => e.dedupe_key)).toEqual(['k000000', 'k000001', 'k000002', 'k000003', 'k000004']);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain('LIMIT 10\n');
    expect(sent[1]).not.toContain('LIMIT 10');
    expect(sent[1]).toContain('WHERE copy_rank = 1');
  });
});
