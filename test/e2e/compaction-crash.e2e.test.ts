/**
 * The compaction crash drill (docs/decisions/columnar-events.md, "Nothing lost, nothing twice"):
 * `npm start` as a child process on a data directory whose landing hours hold eight projects' events
 * of closed hours (some resent: the same event twice), killed with SIGKILL at random moments while
 * it compacts them at start, and restarted on the same directory until a kill has interrupted a run
 * midway (a generation written or committed, the state not yet moved) at least twice. Then, once a
 * start has finished compacting: every event is in the views once and in the curated partitions
 * once, no landing hour compacted is lost, and no generation is left on disk that the state does not
 * either point at or list for deletion.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCompactionState } from '../../lambdas/adapters/duckdb-stream-views';
import { landingHour } from '../../lambdas/contract/landing';
import { prng } from '../../bin/prng';
import { startServerChild, type ServerChild } from '../helpers/crash-load';
import { writeLandingEvents } from '../helpers/landing';
import { storedEventFixture } from '../helpers/stored-event';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-compaction-crash-'));
let server: ServerChild | undefined;
afterAll(async () => {
  if (server) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

// 8 projects of 30 days: 240 partitions, three batches of at most 100 (each committed on its own).
const PROJECTS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
const HOUR = 3_600_000;

/** Seeds two closed landing hours: events of 30 days each, 1% of them resent in the later hour. */
function seed(): Map<string, Set<string>> {
  const random = prng(35);
  const keys = new Map(PROJECTS.map((p) => [p, new Set<string>()]));
  const hours = [landingHour(Date.now() - 4 * HOUR), landingHour(Date.now() - 3 * HOUR)];
  const earlier: ReturnType<typeof storedEventFixture>[] = [];
  for (const [h, hour] of hours.entries()) {
    for (let file = 0; file < 4; file++) {
      const events = Array.from({ length: 7_500 }, (_, i) => {
        const project = PROJECTS[Math.floor(random() * PROJECTS.length)]!;
        const key = `k-${h}-${file}-${i}`;
        keys.get(project)!.add(key);
        const day = `2026-10-${String(1 + Math.floor(random() * 30)).padStart(2, '0')}`;
        return storedEventFixture({
          project_id: project,
          dedupe_key: key,
          name: random() < 0.1 ? 'purchase' : 'page_view',
          sent_user_id: `u${Math.floor(random() * 2000)}`,
          timestamp: `${day}T10:00:00.000Z`,
          received_at: new Date(Date.now() - (4 - h) * HOUR).toISOString(),
        });
      });
      writeLandingEvents(dataDir, events, { hour, file: `object-${file}.ndjson` });
      if (h === 0) earlier.push(...events);
      // Copies of some of the earlier hour's events, landed again in the later one (received later).
      else
        writeLandingEvents(
          dataDir,
          earlier.filter((_, i) => i % 100 === file).map((e) => ({ ...e, received_at: new Date(Date.now() - 3 * HOUR).toISOString() })),
          { hour, file: `resent-${file}.ndjson` },
        );
    }
  }
  return keys;
}

/** Generations on disk per partition, and the state's view of them. */
function generationsOnDisk(): Array<{ partition: string; generation: string }> {
  const root = join(dataDir, 'curated', 'events');
  const out: Array<{ partition: string; generation: string }> = [];
  for (const project of existsSync(root) ? readdirSync(root).filter((n) => n.startsWith('project_id=')) : []) {
    for (const day of readdirSync(join(root, project))) {
      for (const g of readdirSync(join(root, project, day))) out.push({ partition: `${project}/${day}`, generation: g.replace('generation=', '') });
    }
  }
  return out;
}

describe('SIGKILL of npm start while it compacts', () => {
  it('ends with every event once in the views and in the curated partitions, and no generation left behind', { timeout: 240_000 }, async () => {
    const keys = seed();
    const random = prng(36);
    let interrupted = 0;
    let kills = 0;
    while (interrupted < 2 && kills < 14) {
      server = await startServerChild(dataDir);
      // Later and later, so a busy machine (the compaction runs in a niced process) still gets there.
      await new Promise((resolve) => setTimeout(resolve, (200 + random() * 800) * 1.4 ** kills));
      const before = await readCompactionState(dataDir, 'events');
      server.child.kill('SIGKILL');
      await server.exited;
      server = undefined;
      kills++;
      // A run was interrupted midway: generations exist on disk, the state has not moved past them.
      const after = await readCompactionState(dataDir, 'events');
      const writing = existsSync(join(dataDir, 'curated', 'events', '_staging')) && readdirSync(join(dataDir, 'curated', 'events', '_staging')).length > 0;
      if (after.compactedThrough === undefined && before.compactedThrough === undefined && (generationsOnDisk().length > 0 || writing)) interrupted++;
      if (after.compactedThrough !== undefined && interrupted === 0) throw new Error('compaction finished before any kill interrupted it: seed more events');
    }
    expect(interrupted).toBeGreaterThanOrEqual(2);

    // A last start that finishes compacting.
    server = await startServerChild(dataDir);
    const deadline = Date.now() + 120_000;
    while ((await readCompactionState(dataDir, 'events')).compactedThrough === undefined) {
      if (Date.now() > deadline) throw new Error('compaction did not finish within 2 minutes');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    const db = await DuckDBInstance.create(':memory:');
    const duck = await db.connect();
    try {
      const script = readFileSync(join(dataDir, 'views.sql'), 'utf8');
      for (const statement of script.split(/;\n/).filter((s) => !/^\s*$/.test(s.replace(/^--.*$/gm, '')))) await duck.run(statement);
      const rows = async (sql: string) => (await duck.runAndReadAll(sql)).getRowObjectsJS();
      for (const project of PROJECTS) {
        const expected = keys.get(project)!.size;
        const [view] = await rows(`SELECT count(*) AS n, count(DISTINCT dedupe_key) AS d FROM events WHERE project_id = '${project}'`);
        expect(Number(view!.n), project).toBe(expected);
        expect(Number(view!.d), project).toBe(expected);
        const [curated] = await rows(`SELECT count(*) AS n, count(DISTINCT dedupe_key) AS d FROM curated_events WHERE project_id = '${project}'`);
        expect(Number(curated!.n), project).toBe(expected);
        expect(Number(curated!.d), project).toBe(expected);
      }
    } finally {
      duck.closeSync();
      db.closeSync();
    }

    // Every generation on disk is one a partition points at or one the state will delete.
    const state = await readCompactionState(dataDir, 'events');
    const retiring = new Set(state.retiring.map((g) => `project_id=${g.projectId}/dt=${g.dt}/${g.generation}`));
    const catalog = join(dataDir, 'catalog', 'curated_events');
    const current = (partition: string) => {
      const entry = join(catalog, partition);
      return existsSync(entry) ? readlinkSync(entry).split('generation=')[1] : undefined;
    };
    const leaked = generationsOnDisk().filter((g) => current(g.partition) !== g.generation && !retiring.has(`${g.partition}/${g.generation}`));
    expect(leaked).toEqual([]);
  });
});
