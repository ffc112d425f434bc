/**
 * The compaction job locally (lambdas/services/compact-landing.ts over DuckDbCompactionStore): closed
 * landing hours become curated Parquet partitions by project and day, each event once, and the events
 * view (curated plus the landing tail) shows every event once before, during and after compaction.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCompactionHandler } from '../../lambdas/handlers/compact-landing';
import { expectWatchedByAlarm } from '../helpers/emf';
import { linesPrintedBy } from '../helpers/output';
import { DuckDbCompactionStore } from '../../lambdas/adapters/duckdb-compaction';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { curatedFiles, readCompactionState, streamViews } from '../../lambdas/adapters/duckdb-stream-views';
import { compactLanding, type CompactionOptions } from '../../lambdas/services/compact-landing';
import type { StoredEvent } from '../../lambdas/domain/event';
import { storedEventFixture } from '../helpers/stored-event';
import { writeLanding, writeLandingEvents } from '../helpers/landing';

const duckdb = new InProcessDuckDb();
afterAll(() => duckdb.close());

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tally-compaction-'));
  return () => rmSync(dataDir, { recursive: true, force: true });
});

const event = (i: number, fields: Partial<StoredEvent> = {}) =>
  storedEventFixture({
    project_id: 'p1',
    dedupe_key: `k${i}`,
    name: 'purchase',
    sent_user_id: `u${i % 7}`,
    user_id: `u${i % 7}`,
    timestamp: `2026-03-0${1 + (i % 3)}T10:00:00.000Z`,
    received_at: '2026-03-03T10:15:00.000Z',
    ...fields,
  });

const HOUR = 3_600_000;
const options = (nowMs: number, extra: Partial<CompactionOptions> = {}): CompactionOptions => ({
  nowMs,
  closeAfterMs: 15 * 60_000,
  maxHours: 48,
  graceMs: HOUR,
  landingRetentionMs: 3 * 24 * HOUR,
  ...extra,
});

async function viewRows(projectId = 'p1') {
  const views = await streamViews(dataDir, 'events', { projectId });
  return duckdb.use(views, (s) => s.rows(`SELECT dedupe_key, received_at, dt FROM events WHERE project_id = '${projectId}' ORDER BY dedupe_key, received_at`));
}

describe('compaction', () => {
  it('curates closed hours by project and day, each event once, and the view shows each event once throughout', async () => {
    const store = new DuckDbCompactionStore(dataDir, duckdb);
    const events = Array.from({ length: 30 }, (_, i) => event(i));
    writeLandingEvents(dataDir, events, { hour: '2026-03-03-10' });
    // A copy of k1 resent an hour later, and another project's events in the same hours.
    writeLandingEvents(dataDir, [event(1, { received_at: '2026-03-03-11:05:00.000Z'.replace('-11:', 'T11:') })], { hour: '2026-03-03-11' });
    writeLandingEvents(dataDir, [event(100, { project_id: 'p2' })], { hour: '2026-03-03-11' });

    const before = await viewRows();
    expect(before.map((r) => r.dedupe_key)).toEqual(events.map((e) => e.dedupe_key).sort());

    // At 11:20 only hour 10 is closed (its end plus 15 minutes).
    let summary = await compactLanding(store, options(Date.parse('2026-03-03T11:20:00Z')));
    expect(summary.find((s) => s.stream === 'events')).toMatchObject({ hours: 1, partitions: 3, rows: 30, compactedThrough: '2026-03-03-10' });
    expect(await viewRows()).toEqual(before);
    // The copy in the tail (hour 11) is of an event already curated: still listed once, the first received.
    expect((await viewRows()).filter((r) => r.dedupe_key === 'k1')).toEqual([{ dedupe_key: 'k1', received_at: '2026-03-03T10:15:00.000Z', dt: '2026-03-02' }]);

    summary = await compactLanding(store, options(Date.parse('2026-03-03T12:20:00Z')));
    expect(summary.find((s) => s.stream === 'events')).toMatchObject({ hours: 1, compactedThrough: '2026-03-03-11' });
    expect(await viewRows()).toEqual(before);
    expect(await viewRows('p2')).toHaveLength(1);

    // One Parquet file per partition, and the landing tail is empty: the view reads curated files only.
    const files = await curatedFiles(dataDir, 'events', { projectId: 'p1' });
    expect(files).toHaveLength(3);
    expect(files.every((f) => f.endsWith('.parquet'))).toBe(true);
    expect((await readCompactionState(dataDir, 'events')).compactedThrough).toBe('2026-03-03-11');
  });

  it('a run that stops after committing some partitions and before moving the state changes nothing when run again', async () => {
    const store = new DuckDbCompactionStore(dataDir, duckdb);
    writeLandingEvents(
      dataDir,
      Array.from({ length: 12 }, (_, i) => event(i)),
      { hour: '2026-03-03-10' },
    );
    const before = await viewRows();
    // Commit the first batch, then fail the state write that would move it.
    const failing = Object.create(store) as DuckDbCompactionStore;
    let writes = 0;
    failing.writeState = async (stream, state) => {
      if (stream === 'events' && state.compactedThrough !== undefined && ++writes > 0) throw new Error('stopped');
      return store.writeState(stream, state);
    };
    await expect(compactLanding(failing, options(Date.parse('2026-03-03T12:00:00Z')))).rejects.toThrow('stopped');
    expect(await viewRows()).toEqual(before);
    await compactLanding(store, options(Date.parse('2026-03-03T12:00:00Z')));
    expect(await viewRows()).toEqual(before);
  });

  it('deletes superseded generations after the grace and compacted landing hours after the retention, never the current ones', async () => {
    const store = new DuckDbCompactionStore(dataDir, duckdb);
    writeLandingEvents(dataDir, [event(1, { timestamp: '2026-03-03T10:00:00.000Z' })], { hour: '2026-03-03-10' });
    await compactLanding(store, options(Date.parse('2026-03-03T11:20:00Z')));
    writeLandingEvents(dataDir, [event(2, { timestamp: '2026-03-03T11:00:00.000Z', received_at: '2026-03-03T11:10:00.000Z' })], { hour: '2026-03-03-11' });
    await compactLanding(store, options(Date.parse('2026-03-03T12:20:00Z')));
    const partition = join(dataDir, 'curated', 'events', 'project_id=p1', 'dt=2026-03-03');
    expect(readdirSync(partition)).toHaveLength(2);
    // Past the grace: the first generation goes; four days on, the landing hours go too.
    const summary = await compactLanding(store, options(Date.parse('2026-03-07T12:20:00Z')));
    expect(summary.find((s) => s.stream === 'events')).toMatchObject({ generationsDeleted: 1, landingHoursDeleted: 2 });
    expect(readdirSync(partition)).toHaveLength(1);
    expect(existsSync(join(dataDir, 'landing', 'events', 'arrival_hour=2026-03-03-10'))).toBe(false);
    expect((await viewRows()).map((r) => r.dedupe_key)).toEqual(['k1', 'k2']);
  });

  it('compacts identity links too, each once', async () => {
    const store = new DuckDbCompactionStore(dataDir, duckdb);
    const link = { project_id: 'p1', id: 'anon', canonical_id: 'u1', version: 1, timestamp: '2026-03-03T10:00:00.000Z', reason: 'identify' };
    writeLanding(dataDir, 'identities', [link, link], { hour: '2026-03-03-10' });
    await compactLanding(store, options(Date.parse('2026-03-03T12:00:00Z')));
    const views = await streamViews(dataDir, 'identities', { projectId: 'p1' });
    expect(await duckdb.use(views, (s) => s.rows('SELECT id, canonical_id FROM identities'))).toEqual([{ id: 'anon', canonical_id: 'u1' }]);
  });

  it('a failed run emits the alarmed CompactionFailed metric, deletes nothing, and the next run finishes it', async () => {
    const store = new DuckDbCompactionStore(dataDir, duckdb);
    writeLandingEvents(
      dataDir,
      Array.from({ length: 5 }, (_, i) => event(i)),
      { hour: '2026-03-03-10' },
    );
    const failing = Object.create(store) as DuckDbCompactionStore;
    failing.commit = async () => {
      throw new Error('Glue is down');
    };
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any, ...rest: any[]) => {
      lines.push(String(chunk));
      return write(chunk, ...rest);
    });
    try {
      await expect(
        createCompactionHandler({ compaction: { store: failing, options: options(0) }, clock: () => Date.parse('2026-03-03T12:00:00Z') })(Infinity),
      ).rejects.toThrow('Glue is down');
    } finally {
      spy.mockRestore();
    }
    const emf = lines.flatMap((l) => l.split('\n')).filter((l) => l.includes('"CompactionFailed"') && l.includes('"_aws"'));
    expect(emf).toHaveLength(1);
    for (const line of emf) expectWatchedByAlarm(line);
    expect(existsSync(join(dataDir, 'landing', 'events', 'arrival_hour=2026-03-03-10'))).toBe(true);
    expect((await readCompactionState(dataDir, 'events')).compactedThrough).toBeUndefined();
    await compactLanding(store, options(Date.parse('2026-03-03T12:00:00Z')));
    expect((await viewRows()).map((r) => r.dedupe_key)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
  });

  it('a run that wrote more files than one per 128 MiB of each partition emits the alarmed CuratedFilesOverGoal with the excess; a usual run emits none', async () => {
    const store = new DuckDbCompactionStore(dataDir, duckdb);
    writeLandingEvents(
      dataDir,
      Array.from({ length: 5 }, (_, i) => event(i)),
      { hour: '2026-03-03-10' },
    );
    writeLandingEvents(dataDir, [event(9)], { hour: '2026-03-03-11' });
    const run = async (compaction: DuckDbCompactionStore, nowIso: string) => {
      // The warning is logged at the warn level (the tests' is silent).
      vi.stubEnv('TALLY_LOG_LEVEL', 'warn');
      try {
        const lines = await linesPrintedBy(() =>
          createCompactionHandler({ compaction: { store: compaction, options: options(0) }, clock: () => Date.parse(nowIso) })(Infinity),
        );
        return lines.filter((l) => l.includes('CuratedFilesOverGoal'));
      } finally {
        vi.unstubAllEnvs();
      }
    };
    // The local store writes one file per partition: within the goal.
    expect(await run(store, '2026-03-03T11:30:00Z')).toEqual([]);
    // As Athena's UNLOAD may: 5 files for one partition of a few KB, 4 past the goal; the count from the
    // run's totals (filesOverGoal) allows one more file per started 128 MiB, so it reports 3.
    const splitting = Object.create(store) as DuckDbCompactionStore;
    splitting.writeGeneration = async (...args: Parameters<DuckDbCompactionStore['writeGeneration']>) => {
      const written = await store.writeGeneration(...args);
      return { ...written, files: written.files + 4 };
    };
    const lines = await run(splitting, '2026-03-03T12:30:00Z');
    const emf = lines.filter((l) => l.includes('"_aws"'));
    expect(emf).toHaveLength(1);
    for (const line of emf) expectWatchedByAlarm(line);
    expect(JSON.parse(emf[0]!).CuratedFilesOverGoal).toBe(3);
    expect(lines.some((l) => l.includes('compaction wrote more curated files') && l.includes('"files_over_goal":3'))).toBe(true);
  });
});
