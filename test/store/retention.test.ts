/**
 * The retention cut locally (lambdas/services/cut-retention.ts over DuckDbCompactionStore, run by the
 * compaction job's handler): event days before the boundary leave the events view at once and their
 * files after the grace; younger days, identity links and what a cut is given to keep stay.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCompactionHandler } from '../../lambdas/handlers/compact-landing';
import { DuckDbCompactionStore } from '../../lambdas/adapters/duckdb-compaction';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { readCompactionState, streamViews } from '../../lambdas/adapters/duckdb-stream-views';
import type { CompactionOptions } from '../../lambdas/services/compact-landing';
import { storedEventFixture } from '../helpers/stored-event';
import { writeLandingEvents } from '../helpers/landing';
import { expectWatchedByAlarm } from '../helpers/emf';
import { setLogWriter } from '../../lambdas/logging/log';

const duckdb = new InProcessDuckDb();
afterAll(() => duckdb.close());

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tally-retention-'));
  return () => rmSync(dataDir, { recursive: true, force: true });
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const options: Omit<CompactionOptions, 'nowMs'> = { closeAfterMs: 15 * 60_000, maxHours: 24 * 400, graceMs: HOUR, landingRetentionMs: 3 * DAY };

const event = (key: string, timestamp: string, projectId = 'p1') =>
  storedEventFixture({
    project_id: projectId,
    dedupe_key: key,
    name: 'purchase',
    sent_user_id: 'u1',
    user_id: 'u1',
    timestamp,
    received_at: '2026-06-01T10:10:00.000Z',
  });

async function days(projectId = 'p1') {
  const views = await streamViews(dataDir, 'events', { projectId });
  const rows = await duckdb.use(views, (s) => s.rows(`SELECT dt, count(*) AS n FROM events WHERE project_id = '${projectId}' GROUP BY dt ORDER BY dt`));
  return rows.map((r) => `${String(r.dt)}:${Number(r.n)}`);
}

function captureStdout() {
  const lines: string[] = [];
  const records: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  setLogWriter((r) => records.push(r));
  vi.stubEnv('TALLY_LOG_LEVEL', 'info');
  const write = process.stdout.write.bind(process.stdout);
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any, ...rest: any[]) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return write(chunk, ...rest);
  });
  return {
    lines,
    records,
    restore: () => {
      spy.mockRestore();
      setLogWriter(undefined);
      vi.unstubAllEnvs();
    },
  };
}

const partitionDirs = (projectId: string) => readdirSync(join(dataDir, 'curated', 'events', `project_id=${projectId}`)).sort();

describe('retention cut', () => {
  it('removes event days older than the retention from the events view at once and their files after the grace; younger days stay', async () => {
    const store = new DuckDbCompactionStore(dataDir, duckdb);
    // Events of four days, all arriving in one hour: two before the 90-day boundary of 2026-06-02, two after.
    writeLandingEvents(
      dataDir,
      [
        event('old1', '2026-01-10T12:00:00.000Z'),
        event('old2', '2026-03-03T23:59:59.000Z'),
        event('edge', '2026-03-04T00:00:00.000Z'),
        event('new1', '2026-05-30T08:00:00.000Z'),
        event('new2', '2026-05-30T09:00:00.000Z'),
        event('other', '2026-01-10T12:00:00.000Z', 'p2'),
      ],
      { hour: '2026-06-01-10' },
    );
    const now = Date.parse('2026-06-02T06:00:00Z');
    const run = (nowMs: number) => createCompactionHandler({ compaction: { store, options, keepEventsDays: 90 }, clock: () => nowMs })(Infinity);
    const out = captureStdout();
    try {
      await run(now);
    } finally {
      out.restore();
    }
    // The boundary: 2026-06-02 minus 90 days is 2026-03-04, the first day kept.
    expect(await days()).toEqual(['2026-03-04:1', '2026-05-30:2']);
    expect(await days('p2')).toEqual([]);
    const summary = out.records.find((r) => r.msg === 'retention cut');
    expect(summary?.fields).toEqual({ stream: 'events', keep_days: 90, kept_from: '2026-03-04', partitions_removed: 3, days_removed: 2 });
    const removed = out.lines.filter((l) => l.includes('"RetentionRemoved"') && l.includes('"_aws"')).map((l) => JSON.parse(l));
    expect(removed.map((l) => l.RetentionRemoved)).toEqual([3]);

    // Within the grace a query planned before the cut can still read the files; after it they are gone.
    expect(partitionDirs('p1')).toEqual(['dt=2026-01-10', 'dt=2026-03-03', 'dt=2026-03-04', 'dt=2026-05-30']);
    await run(now + 2 * HOUR);
    const left = (dt: string) => readdirSync(join(dataDir, 'curated', 'events', 'project_id=p1', dt));
    expect(left('dt=2026-01-10')).toEqual([]);
    expect(left('dt=2026-03-03')).toEqual([]);
    expect(left('dt=2026-03-04')).toHaveLength(1);
    expect(left('dt=2026-05-30')).toHaveLength(1);
    expect((await readCompactionState(dataDir, 'events')).retiring).toEqual([]);
    expect(await days()).toEqual(['2026-03-04:1', '2026-05-30:2']);

    // The next day the boundary moves one day: 2026-03-04 goes.
    await run(now + DAY);
    expect(await days()).toEqual(['2026-05-30:2']);
  });

  it('keeps everything without a retention, and never cuts identity links', async () => {
    const store = new DuckDbCompactionStore(dataDir, duckdb);
    writeLandingEvents(dataDir, [event('old', '2025-01-10T12:00:00.000Z')], { hour: '2026-06-01-10' });
    await createCompactionHandler({ compaction: { store, options }, clock: () => Date.parse('2026-06-02T06:00:00Z') })(Infinity);
    expect(await days()).toEqual(['2025-01-10:1']);
    expect(await store.curatedPartitionsBefore('identities', '9999-01-01')).toEqual([]);
  });

  it('a failed cut is loud (RetentionFailed, alarmed) and the next run finishes it', async () => {
    const store = new DuckDbCompactionStore(dataDir, duckdb);
    writeLandingEvents(dataDir, [event('old', '2026-01-10T12:00:00.000Z'), event('new', '2026-05-30T12:00:00.000Z')], { hour: '2026-06-01-10' });
    const failing = Object.create(store) as DuckDbCompactionStore;
    failing.dropPartitions = async () => {
      throw new Error('Glue is down');
    };
    const now = Date.parse('2026-06-02T06:00:00Z');
    const out = captureStdout();
    try {
      await expect(createCompactionHandler({ compaction: { store: failing, options, keepEventsDays: 90 }, clock: () => now })(Infinity)).rejects.toThrow(
        'Glue is down',
      );
    } finally {
      out.restore();
    }
    const emf = out.lines.filter((l) => l.includes('"RetentionFailed"') && l.includes('"_aws"'));
    expect(emf).toHaveLength(1);
    for (const line of emf) expectWatchedByAlarm(line);
    expect(out.records.filter((r) => r.level === 'error').map((r) => r.msg)).toEqual([
      'retention cut failed; events older than the retention stay until a run succeeds (metric RetentionFailed)',
    ]);
    // The generation was put on the retiring list before the failed drop, but its partition still points at it: kept.
    await createCompactionHandler({ compaction: { store, options }, clock: () => now + 2 * HOUR })(Infinity);
    expect(await days()).toEqual(['2026-01-10:1', '2026-05-30:1']);
    await createCompactionHandler({ compaction: { store, options, keepEventsDays: 90 }, clock: () => now + 3 * HOUR })(Infinity);
    expect(await days()).toEqual(['2026-05-30:1']);
    expect(existsSync(join(dataDir, 'catalog', 'curated_events', 'project_id=p1', 'dt=2026-01-10'))).toBe(false);
  });
});
