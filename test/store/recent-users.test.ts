/**
 * The recent-users listing over the events view: DuckDB over the landing NDJSON files as the local
 * Firehose endpoint (and the S3 bucket) lays them out, and again over the curated Parquet partitions
 * after compaction (the same answers); and the SQL Athena gets.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AthenaRecentUsers } from '../../lambdas/adapters/athena-recent-users';
import { caseFold } from '../../lambdas/adapters/sql/case-fold';
import { DuckDbRecentUsers } from '../../lambdas/adapters/duckdb-recent-users';
import type { StoredEvent } from '../../lambdas/domain/event';
import { storedEventFixture } from '../helpers/stored-event';
import { landedDataDir, writeLandingEvents } from '../helpers/landing';

const DAY = 86_400_000;
const now = Date.UTC(2026, 5, 30, 12);
let n = 0;

/** An event `minutesAgo` before now, stored under canonical `userId`, sent as `sentId`. */
function stored(projectId: string, minutesAgo: number, userId: string | null, sentId: string | null, overrides: Partial<StoredEvent> = {}): StoredEvent {
  const ts = now - minutesAgo * 60_000;
  return storedEventFixture({
    project_id: projectId,
    dedupe_key: `k${n++}`,
    name: 'view',
    user_id: userId,
    sent_user_id: sentId,
    timestamp: new Date(ts).toISOString(),
    received_at: new Date(ts + 1000).toISOString(),
    ...overrides,
  });
}

/** Writes events into the landing hours of their received_at, two files per hour. */
function write(dataDir: string, events: StoredEvent[]) {
  events.forEach((e, i) => writeLandingEvents(dataDir, [e], { file: `part-${i % 2}.ndjson` }));
}

function writeFixtures(dataDir: string) {
  const events: StoredEvent[] = [];
  // Ann: seen anonymously on two devices, then signed in; the newest user.
  events.push(stored('p', 30, 'anon-a1', 'anon-a1'), stored('p', 20, 'ann', 'anon-a2'), stored('p', 2, 'ann', 'ann'), stored('p', 1, 'ann', 'ann'));
  // The same record delivered twice counts once; so does a resend stored later under another
  // canonical ID (the IDs were linked in between): the copy received first is the event.
  const dup = stored('p', 5, 'ann', 'anon-a2');
  events.push(dup, { ...dup }, { ...dup, user_id: 'someone-else', received_at: new Date(now).toISOString() });
  // Bob: seven devices, older.
  for (let i = 0; i < 7; i++) events.push(stored('p', 60 + i, 'bob', `bob-device-${i}`));
  // An event with no user: not a user.
  events.push(stored('p', 0, null, null));
  // Received before the window: not listed.
  events.push(stored('p', 0, 'ghost', 'ghost', { received_at: new Date(now - 31 * DAY).toISOString() }));
  // Another project.
  events.push(stored('other', 3, "o'brien", "o'brien"));
  write(dataDir, events);
}

describe.each(['landing', 'curated'] as const)('DuckDbRecentUsers (read from %s)', (read) => {
  let dataDir: string;
  let listing: DuckDbRecentUsers;

  beforeAll(async () => {
    // From curated: every landing hour compacted (an hour after the last arrival), the listing reads Parquet only.
    dataDir = await landedDataDir('tally-recent-users-', read, writeFixtures, now);
    listing = new DuckDbRecentUsers(dataDir, { windowDays: 30 });
  });
  afterAll(async () => {
    await listing.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists users the most recently seen first, with their event count (each event once, its first copy) and the IDs their events were sent with', async () => {
    expect(await listing.recent('p', { limit: 10 }, now)).toEqual([
      { user_id: 'ann', ids: ['ann', 'anon-a2'], id_count: 2, events: 4, last_seen: new Date(now - 60_000).toISOString() },
      { user_id: 'anon-a1', ids: ['anon-a1'], id_count: 1, events: 1, last_seen: new Date(now - 30 * 60_000).toISOString() },
      {
        user_id: 'bob',
        ids: ['bob-device-0', 'bob-device-1', 'bob-device-2', 'bob-device-3', 'bob-device-4'],
        id_count: 7,
        events: 7,
        last_seen: new Date(now - 60 * 60_000).toISOString(),
      },
    ]);
  });

  it('searches any ID, canonical or as sent, case-insensitively, and takes the text literally', async () => {
    expect((await listing.recent('p', { limit: 10, search: 'A2' }, now)).map((u) => u.user_id)).toEqual(['ann']);
    // The matching user keeps all its IDs, not only the one that matched.
    expect((await listing.recent('p', { limit: 10, search: 'device-6' }, now))[0]!.ids).toHaveLength(5);
    expect((await listing.recent('p', { limit: 10, search: 'anon' }, now)).map((u) => u.user_id)).toEqual(['ann', 'anon-a1']);
    expect(await listing.recent('p', { limit: 10, search: '%' }, now)).toEqual([]);
    expect(await listing.recent('p', { limit: 10, search: "o'" }, now)).toEqual([]);
    expect((await listing.recent('other', { limit: 10, search: "O'BR" }, now)).map((u) => u.user_id)).toEqual(["o'brien"]);
  });

  it('returns up to the limit, one project only, nothing for a project without events', async () => {
    expect((await listing.recent('p', { limit: 2 }, now)).map((u) => u.user_id)).toEqual(['ann', 'anon-a1']);
    expect(await listing.recent('none', { limit: 10 }, now)).toEqual([]);
  });
});

describe('AthenaRecentUsers', () => {
  it('reads the latest partitions of the project only, and turns text rows into users', async () => {
    const sent: string[] = [];
    const athena = {
      eventsTable: 'tally.events',
      run: async (sql: string) => {
        sent.push(sql);
        const row = (id: string, rank: string) => ({
          user_id: 'ann',
          events: '4',
          last_seen: '2026-06-30T11:59:00.000Z',
          id_count: '2',
          sent_user_id: id,
          id_rank: rank,
        });
        return { rows: [row('ann', '1'), row('anon-a2', '2')], execution: {} };
      },
    };
    const recent = new AthenaRecentUsers(athena, { windowDays: 30, maxWaitMs: 25_000 });
    expect(await recent.recent('p', { limit: 5, search: "it's" }, now)).toEqual([
      { user_id: 'ann', ids: ['ann', 'anon-a2'], id_count: 2, events: 4, last_seen: '2026-06-30T11:59:00.000Z' },
    ]);
    expect(sent[0]).toContain('FROM tally.events');
    expect(sent[0]).toContain("project_id = 'p'");
    expect(sent[0]).toContain("dt >= '2026-05-31'");
    expect(sent[0]).toContain("received_at >= '2026-05-31T12:00:00.000Z'");
    // Case folded by the explicit table (case-fold.ts), on the IDs and on the search text alike.
    expect(sent[0]).toContain(`strpos(${caseFold("coalesce(user_id, '')")}, ${caseFold("'it''s'")}) > 0`);
    // Email and name as an $identify sent them, in Trino's json_extract_scalar.
    expect(sent[0]).toContain(
      `name = '$identify' AND (strpos(${caseFold("coalesce(json_extract_scalar(properties, '$.email'), '')")}, ${caseFold("'it''s'")}) > 0`,
    );
    expect(sent[0]).not.toContain('lower(');
    expect(sent[0]).toContain('LIMIT 5');
  });
});
