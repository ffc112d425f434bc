/**
 * A person's deletion through the local server (docs/api.md "Deletions", docs/decisions/erasure.md):
 * after it finishes, every query a user or an analyst can run finds 0 rows of the person (every ID
 * linked to the one asked for, now or as it was), in curated partitions and landing hours alike, and
 * another person's counts are unchanged; the superseded generations go after the grace.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { testDuckDb, type TestDuckDb } from '../helpers/duckdb';
import { writeLanding } from '../helpers/landing';
import { analystCounts as countsOf, inList } from '../helpers/person-counts';

const HOUR = 3_600_000;
let now = Date.parse('2026-04-15T09:30:00Z');
let stack: TestStack;
let duck: TestDuckDb;
let project: string;
let key: string;

const ANN = ['ann', 'ann-phone', 'ann-laptop'];

const send = async (events: unknown[]) => {
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
};

/** What an analyst's DuckDB finds over the data directory's views (views.sql), by person. */
const analystCounts = (ids: string[]) => countsOf(stack, duck, ids);

/** Every Parquet file under curated/ (every generation, current or superseded): the rows of these IDs. */
async function physicalCuratedRows(ids: string[]): Promise<number> {
  const files = (stream: string) =>
    (readdirSync(join(stack.dataDir, 'curated', stream), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.parquet'))
      .map((f) => `'${join(stack.dataDir, 'curated', stream, f)}'`);
  const count = async (stream: string, where: string) => {
    const list = files(stream);
    if (list.length === 0) return 0;
    return Number((await duck.rows(`SELECT count(*) AS n FROM read_parquet([${list.join(', ')}]) WHERE ${where}`))[0]!.n);
  };
  return (
    (await count('events', `user_id IN (${inList(ids)}) OR sent_user_id IN (${inList(ids)})`)) +
    (await count('identities', `id IN (${inList(ids)}) OR canonical_id IN (${inList(ids)})`))
  );
}

const trends = async () => {
  const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, {
    series: [{ event: 'view' }, { event: 'view', measure: 'users' }],
    date_from: '2026-04-08',
    date_to: '2026-04-14',
    compare: false,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { cached: boolean; result: { lines: Array<{ total: number }> } };
};

beforeAll(async () => {
  stack = await startTestStack({ clock: () => now });
  duck = await testDuckDb();
  project = await stack.createProject('erasure');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
  // Ann: a phone, then a laptop, each linked to her account by $identify, with a profile.
  await send([
    { name: 'view', user_id: 'ann-phone', timestamp: '2026-04-09T10:00:00Z' },
    { name: '$identify', user_id: 'ann', timestamp: '2026-04-09T10:01:00Z', properties: { $anonymous_id: 'ann-phone', email: 'ann@example.com', name: 'Ann' } },
    { name: 'view', user_id: 'ann', timestamp: '2026-04-10T10:00:00Z' },
    { name: 'view', user_id: 'bob', timestamp: '2026-04-10T11:00:00Z' },
    { name: 'view', user_id: 'bob', timestamp: '2026-04-11T11:00:00Z' },
  ]);
  // That hour is compacted into the curated partitions; what follows stays in the landing tail.
  await stack.compaction.runNow(Date.parse('2026-04-15T11:00:00Z'));
  now = Date.parse('2026-04-15T11:30:00Z');
  await send([
    { name: 'view', user_id: 'ann-laptop', timestamp: '2026-04-12T10:00:00Z' },
    { name: '$identify', user_id: 'ann', timestamp: '2026-04-12T10:01:00Z', properties: { $anonymous_id: 'ann-laptop' } },
    { name: 'view', user_id: 'ann', timestamp: '2026-04-13T10:00:00Z' },
    { name: 'view', user_id: 'bob', timestamp: '2026-04-13T11:00:00Z' },
  ]);
});
afterAll(async () => {
  duck?.close();
  await stack?.stop();
});

describe('deleting a person', () => {
  it("removes every ID linked to the one asked for from every store, and leaves another person's data as it was", async () => {
    // Before: Ann's and Bob's rows are in curated and landing, and in every listing.
    const annBefore = await analystCounts(ANN);
    expect(annBefore.curated_events).toBeGreaterThan(0);
    expect(annBefore.landing_events).toBeGreaterThan(0);
    expect(annBefore.identities).toBeGreaterThan(0);
    const bobBefore = await analystCounts(['bob']);
    expect(bobBefore.events).toBe(3);
    const before = await trends();
    expect(before.result.lines.map((l) => l.total)).toEqual([7, 2]);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users/ann-laptop`)).status).toBe(200);

    now = Date.parse('2026-04-15T11:40:00Z');
    const asked = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: 'ann-laptop', reason: 'GDPR art. 17 request #12' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const { deletion } = asked.body;
    expect(deletion).toMatchObject({
      project_id: project,
      user_id: 'ann-laptop',
      reason: 'GDPR art. 17 request #12',
      suppress: false,
      state: 'pending',
      requested_at: '2026-04-15T11:40:00.000Z',
      requested_by: 'admin token',
      due_by: '2026-04-16T11:40:00.000Z',
    });
    expect(deletion).not.toHaveProperty('step');

    // The compaction job's next run carries it out (it does not compact the open hour 11).
    await stack.compaction.runNow();
    const done = await stack.admin('GET', `/admin/v1/projects/${project}/deletions/${deletion.id}`);
    expect(done.status).toBe(200);
    expect(done.body.deletion).toMatchObject({ id: deletion.id, state: 'done', finished_at: '2026-04-15T11:40:00.000Z', ids: [...ANN].sort() });
    const receipt = Object.fromEntries(done.body.deletion.receipt.map((l: { store: string; removed: number }) => [l.store, l.removed]));
    expect(receipt).toMatchObject({
      identities: 3,
      curated_events: annBefore.curated_events,
      landing_events: annBefore.landing_events,
      landing_identities: expect.any(Number),
      curated_identities: expect.any(Number),
      assignments: 0,
      results_state: expect.any(Number),
      insight_queries: 1,
    });
    expect(receipt.landing_identities + receipt.curated_identities).toBeGreaterThan(0);

    // Nothing of Ann in any view an analyst queries; Bob as he was.
    expect(await analystCounts(ANN)).toEqual({ events: 0, unique_events: 0, landing_events: 0, curated_events: 0, identities: 0, curated_identities: 0 });
    expect(await analystCounts(['bob'])).toEqual(bobBefore);
    // Nor in the admin API: people, their page, the events listing, insights (not answered from the cache).
    for (const id of ANN) expect((await stack.admin('GET', `/admin/v1/projects/${project}/users/${id}`)).status).toBe(404);
    const users = await stack.admin('GET', `/admin/v1/projects/${project}/users`);
    expect(users.body.users.map((u: { user_id: string }) => u.user_id)).toEqual(['bob']);
    for (const search of ['ann', 'ann@example.com']) {
      const found = await stack.admin('GET', `/admin/v1/projects/${project}/users?search=${encodeURIComponent(search)}`);
      expect(found.status).toBe(200);
      expect(found.body.users).toEqual([]);
    }
    const listed = await stack.admin('GET', `/admin/v1/projects/${project}/events`);
    expect(new Set(listed.body.events.map((e: { sent_user_id: string }) => e.sent_user_id))).toEqual(new Set(['bob']));
    const after = await trends();
    expect(after.cached).toBe(false);
    expect(after.result.lines.map((l) => l.total)).toEqual([3, 1]);
    // The raw landing files hold no line of hers.
    expect(stack.rawEvents(project).filter((e) => ANN.includes(e.sent_user_id ?? ''))).toEqual([]);
    expect(stack.identityRecords(project).filter((r) => ANN.includes(r.id) || ANN.includes(r.canonical_id))).toEqual([]);

    // The generations she was in stay readable for the grace (an hour locally), then go: physically gone.
    expect(await physicalCuratedRows(ANN)).toBeGreaterThan(0);
    await stack.compaction.runNow(now + 2 * HOUR);
    expect(await physicalCuratedRows(ANN)).toBe(0);
    // That run also compacted hour 11 (Bob's last event is curated now): his events are all still there.
    expect(await analystCounts(['bob'])).toMatchObject({ events: 3, unique_events: 3, curated_events: 3 });
    expect(await analystCounts(ANN)).toEqual({ events: 0, unique_events: 0, landing_events: 0, curated_events: 0, identities: 0, curated_identities: 0 });
  });

  it('sweeps an object Firehose delivers late, holding events received before the request, and counts it in the receipt', async () => {
    const [ann] = (await stack.admin('GET', `/admin/v1/projects/${project}/deletions`)).body.deletions;
    expect(ann.user_id).toBe('ann-laptop');
    expect(ann.sweep_until).toBe('2026-04-16T11:55:00.000Z');
    const landed = (d: { receipt: Array<{ store: string; removed: number }> }) => d.receipt.find((l) => l.store === 'landing_events')!.removed;
    // Received at 11:35 (before the request at 11:40), delivered after the deletion finished: a late object.
    const late = {
      ...stack.rawEvents(project).find((e) => e.sent_user_id === 'bob')!,
      dedupe_key: 'late-ann',
      user_id: 'ann',
      sent_user_id: 'ann-phone',
      received_at: '2026-04-15T11:35:00.000Z',
    };
    writeLanding(stack.dataDir, 'events', [late], { hour: '2026-04-15-13', file: 'late-delivery.ndjson' });
    expect((await analystCounts(ANN)).events).toBe(1);
    await stack.compaction.runNow();
    expect(await analystCounts(ANN)).toEqual({ events: 0, unique_events: 0, landing_events: 0, curated_events: 0, identities: 0, curated_identities: 0 });
    const after = (await stack.admin('GET', `/admin/v1/projects/${project}/deletions/${ann.id}`)).body.deletion;
    expect(landed(after)).toBe(landed(ann) + 1);
  });

  it('accepts an ID with no data: the receipt says 0 everywhere', async () => {
    now = Date.parse('2026-04-15T11:45:00Z');
    const asked = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: 'nobody' });
    expect(asked.status).toBe(202);
    await stack.compaction.runNow();
    const done = await stack.admin('GET', `/admin/v1/projects/${project}/deletions/${asked.body.deletion.id}`);
    expect(done.body.deletion).toMatchObject({ state: 'done', ids: ['nobody'] });
    expect(done.body.deletion.receipt.every((l: { removed: number }) => l.removed === 0)).toBe(true);
    expect(done.body.deletion.receipt).toHaveLength(9);
  });

  it('lists deletions newest first, paginated', async () => {
    const first = await stack.admin('GET', `/admin/v1/projects/${project}/deletions?limit=1`);
    expect(first.status).toBe(200);
    expect(first.body.deletions.map((d: { user_id: string }) => d.user_id)).toEqual(['nobody']);
    const second = await stack.admin('GET', `/admin/v1/projects/${project}/deletions?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.deletions.map((d: { user_id: string }) => d.user_id)).toEqual(['ann-laptop']);
  });

  it.each([
    [{}, /user_id/],
    [{ user_id: '' }, /user_id must not be empty/],
    [{ user_id: 'x'.repeat(1025) }, /user_id must be at most 1024/],
    [{ user_id: 'a', erase: true }, /erase/],
    [{ user_id: 'a', suppress: 'yes' }, /suppress must be true or false/],
  ])('refuses an invalid request with a 400 that says what to fix (%#)', async (body, message) => {
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  it('answers 404 for an unknown project or deletion', async () => {
    expect((await stack.admin('POST', '/admin/v1/projects/no-such-project/deletions', { user_id: 'a' })).status).toBe(404);
    const missing = await stack.admin('GET', `/admin/v1/projects/${project}/deletions/abc-00000000-0000-0000-0000-000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/Deletion .* not found/);
  });
});
