/**
 * A person's deletion interrupted at each of its steps resumes at the next run and finishes
 * (docs/decisions/erasure.md, "Crash safety"); two deletions of overlapping people both finish; events
 * sent while a deletion rewrites the landing files are all kept.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWatchedByAlarm } from '../helpers/emf';
import { DELETION_STEPS, type DeletionStep } from '../../lambdas/domain/deletion';
import { linesPrintedBy } from '../helpers/output';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { testDuckDb, type TestDuckDb } from '../helpers/duckdb';

const HOUR = 3_600_000;
let now = Date.parse('2026-05-01T09:30:00Z');
let stack: TestStack;
let duck: TestDuckDb;
let project: string;
let key: string;
/** The step whose start throws once (as a crash there would stop the run), or none. */
let crashAt: DeletionStep | undefined;
let crashes = 0;

const send = async (events: unknown[]) => {
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
};

const rowsOf = async (ids: string[]) => {
  const list = ids.map((id) => `'${id}'`).join(', ');
  const setup = readFileSync(stack.analystViews, 'utf8');
  const [events] = await duck.rows(`SELECT count(*) AS n FROM events WHERE user_id IN (${list}) OR sent_user_id IN (${list})`, setup);
  const [links] = await duck.rows(`SELECT count(*) AS n FROM identities WHERE id IN (${list}) OR canonical_id IN (${list})`, setup);
  return { events: Number(events!.n), links: Number(links!.n) };
};

/** A person with two linked IDs, events curated (an hour compacted) and events in the landing tail. */
async function person(name: string): Promise<string[]> {
  await send([
    { name: 'view', user_id: `${name}-anon`, timestamp: '2026-04-20T10:00:00Z' },
    { name: '$identify', user_id: name, timestamp: '2026-04-20T10:01:00Z', properties: { $anonymous_id: `${name}-anon`, email: `${name}@example.com` } },
  ]);
  now += 2 * HOUR;
  await stack.compaction.runNow();
  await send([{ name: 'view', user_id: name, timestamp: '2026-04-21T10:00:00Z' }]);
  return [name, `${name}-anon`];
}

const deletionOf = async (id: string) => (await stack.admin('GET', `/admin/v1/projects/${project}/deletions/${id}`)).body.deletion;

beforeAll(async () => {
  stack = await startTestStack({
    clock: () => now,
    deletionStepHook: (_deletion, step) => {
      if (step !== crashAt) return;
      crashAt = undefined;
      crashes++;
      throw new Error(`injected crash before ${step}`);
    },
  });
  duck = await testDuckDb();
  project = await stack.createProject('erasure-resume');
  key = await stack.createKey(project, UNTHROTTLED_KEY);
  await send([{ name: 'view', user_id: 'bob', timestamp: '2026-04-20T09:00:00Z' }]);
});
afterAll(async () => {
  duck?.close();
  await stack?.stop();
});

describe('an interrupted deletion', () => {
  it.each(DELETION_STEPS.map((s) => [s]))('stopped at %s resumes at the next run and finishes with nothing of the person left', async (step) => {
    const ids = await person(`p-${step.replaceAll('_', '-')}`);
    expect((await rowsOf(ids)).events).toBe(3);
    const bob = await rowsOf(['bob']);
    const asked = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: ids[0] });
    expect(asked.status).toBe(202);

    crashAt = step;
    const before = crashes;
    await stack.compaction.runNow();
    expect(crashes).toBe(before + 1);
    const stopped = await deletionOf(asked.body.deletion.id);
    expect(stopped.state).not.toBe('done');
    expect(stopped).not.toHaveProperty('finished_at');

    await stack.compaction.runNow();
    const done = await deletionOf(asked.body.deletion.id);
    expect(done).toMatchObject({ state: 'done', ids: [...ids].sort() });
    expect(done.receipt.map((l: { store: string }) => l.store)).toEqual(DELETION_STEPS.filter((s) => s !== 'ids'));
    expect(await rowsOf(ids)).toEqual({ events: 0, links: 0 });
    expect(await rowsOf(['bob'])).toEqual(bob);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users/${ids[0]}`)).status).toBe(404);
  });

  it('a failed step emits the alarmed DeletionFailed metric (and no client value in the log)', async () => {
    const ids = await person('zq7');
    await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: ids[0], reason: 'secret reason' });
    crashAt = 'curated_events';
    const all = await linesPrintedBy(() => stack.compaction.runNow());
    const emf = all.filter((l) => l.includes('"DeletionFailed"') && l.includes('"_aws"'));
    expect(emf).toHaveLength(1);
    for (const line of emf) expectWatchedByAlarm(line);
    expect(all.filter((l) => l.includes('zq7'))).toEqual([]);
    expect(all.join('\n')).not.toContain('secret reason');
    await stack.compaction.runNow();
    expect(await rowsOf(ids)).toEqual({ events: 0, links: 0 });
  });

  it('two deletions of one person (asked for by two of its IDs) both finish', async () => {
    const ids = await person('twice');
    const first = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: ids[0] });
    now += 1000;
    const second = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: ids[1] });
    await stack.compaction.runNow();
    for (const asked of [first, second]) expect((await deletionOf(asked.body.deletion.id)).state).toBe('done');
    // The first found the whole person and removed it; the second found what was left of it: its own ID.
    expect((await deletionOf(first.body.deletion.id)).ids).toEqual([...ids].sort());
    expect(await rowsOf(ids)).toEqual({ events: 0, links: 0 });
  });

  it('keeps every event sent while a deletion rewrites the landing files', async () => {
    const ids = await person('busy');
    const asked = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: ids[0] });
    const bob = (await rowsOf(['bob'])).events;
    // Bob's events arrive throughout the run (their received_at is after the request: kept either way).
    now += 1000;
    const sending = (async () => {
      for (let i = 0; i < 20; i++) await send([{ name: 'tap', user_id: 'bob', timestamp: `2026-04-22T10:00:${String(i).padStart(2, '0')}Z` }]);
    })();
    await Promise.all([stack.compaction.runNow(), sending]);
    expect((await deletionOf(asked.body.deletion.id)).state).toBe('done');
    expect((await rowsOf(['bob'])).events).toBe(bob + 20);
    expect(await rowsOf(ids)).toEqual({ events: 0, links: 0 });
  });
});
