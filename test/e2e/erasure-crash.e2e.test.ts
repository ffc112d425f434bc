/**
 * The deletion crash drill (docs/decisions/erasure.md, "Crash safety"): `npm start` as a child process
 * whose data directory holds a month of one project's events, Ann's among them, compacted; a deletion
 * of Ann asked for; then the server killed with SIGKILL at random moments while the compaction run
 * carries the deletion out, and restarted on the same directory, until kills have interrupted the
 * deletion midway (state `running`) twice (14 kills at most; at least one must have). Events of
 * another user are sent the whole time.
 * Then, once a start has finished the deletion: nothing of Ann in any view, the other users' seeded
 * events all there once, and every event the server acknowledged (204) during the drill there once.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCompactionState } from '../../lambdas/adapters/duckdb-stream-views';
import { landingHour } from '../../lambdas/contract/landing';
import { prng } from '../../bin/prng';
import { CRASH_ADMIN_TOKEN, startServerChild, type ServerChild } from '../helpers/crash-load';
import { testDuckDb } from '../helpers/duckdb';
import { writeLandingEvents } from '../helpers/landing';
import { storedEventFixture } from '../helpers/stored-event';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-erasure-crash-'));
let server: ServerChild | undefined;
afterAll(async () => {
  if (server) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const HOUR = 3_600_000;
const USERS = 200;

const call = async (method: string, path: string, body?: unknown, auth = `Bearer ${CRASH_ADMIN_TOKEN}`) => {
  const res = await fetch(server!.url + path, {
    method,
    headers: { Authorization: auth, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
};

/** A month of events in two closed landing hours: Ann (user 0) on every day, 199 others. How many each user has. */
function seed(projectId: string): Map<string, number> {
  const random = prng(37);
  const counts = new Map<string, number>();
  const hours = [landingHour(Date.now() - 4 * HOUR), landingHour(Date.now() - 3 * HOUR)];
  for (const [h, hour] of hours.entries()) {
    for (let file = 0; file < 3; file++) {
      const events = Array.from({ length: 5_000 }, (_, i) => {
        const user = i % 10 === 0 ? 'ann' : `u${1 + Math.floor(random() * (USERS - 1))}`;
        counts.set(user, (counts.get(user) ?? 0) + 1);
        const day = `2026-10-${String(1 + Math.floor(random() * 30)).padStart(2, '0')}`;
        return storedEventFixture({
          project_id: projectId,
          dedupe_key: `k-${h}-${file}-${i}`,
          name: 'page_view',
          sent_user_id: user,
          user_id: user,
          timestamp: `${day}T10:00:00.000Z`,
          received_at: new Date(Date.now() - (4 - h) * HOUR).toISOString(),
        });
      });
      writeLandingEvents(dataDir, events, { hour, file: `object-${file}.ndjson` });
    }
  }
  return counts;
}

async function waitFor(what: string, done: () => Promise<boolean>, ms = 120_000) {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('SIGKILL of npm start while it deletes a person', () => {
  it('resumes and finishes the deletion: nothing of the person left, everyone else once, every acknowledged event kept', { timeout: 300_000 }, async () => {
    server = await startServerChild(dataDir);
    const projectId = (await call('POST', '/admin/v1/projects', { name: 'erasure drill' })).body.id as string;
    const key = (await call('POST', `/admin/v1/projects/${projectId}/keys`, { plan: 'enterprise', rate_limit_per_minute: 100_000 })).body.key as string;
    const seeded = seed(projectId);
    // Compacted first (the run at start of a new process), so the deletion rewrites curated partitions.
    server.child.kill('SIGKILL');
    await server.exited;
    server = await startServerChild(dataDir);
    await waitFor('compaction of the seeded hours', async () => (await readCompactionState(dataDir, 'events')).compactedThrough !== undefined);

    const asked = await call('POST', `/admin/v1/projects/${projectId}/deletions`, { user_id: 'ann' });
    expect(asked.status).toBe(202);
    const deletionPath = `/admin/v1/projects/${projectId}/deletions/${asked.body.deletion.id}`;
    server.child.kill('SIGKILL');
    await server.exited;

    // Carol's events, sent while the deletion runs and the server dies: each acknowledged one must stay.
    const acknowledged = new Set<string>();
    let sent = 0;
    const sendSome = async () => {
      // Each at its own instant: (name, user, time) is the deduplication key.
      const events = Array.from({ length: 20 }, () => {
        const n = ++sent;
        return { name: 'tap', event_id: `carol-${n}`, user_id: 'carol', timestamp: new Date(Date.parse('2026-11-01T00:00:00Z') + n).toISOString() };
      });
      const res = await call('POST', '/v1/events', { events }, `Bearer ${key}`).catch(() => undefined);
      if (res?.status === 204) for (const e of events) acknowledged.add(e.event_id);
    };

    const random = prng(38);
    let interrupted = 0;
    let kills = 0;
    let state = 'pending';
    while (interrupted < 2 && kills < 14) {
      server = await startServerChild(dataDir);
      const until = Date.now() + (150 + random() * 600) * 1.3 ** kills;
      while (Date.now() < until) await sendSome();
      state = (await call('GET', deletionPath)).body.deletion.state as string;
      server.child.kill('SIGKILL');
      await server.exited;
      server = undefined;
      kills++;
      if (state === 'running') interrupted++;
      if (state === 'done') break;
    }
    expect(interrupted, `kills: ${kills}, last state: ${state}`).toBeGreaterThanOrEqual(1);

    // A last start that finishes it.
    server = await startServerChild(dataDir);
    await sendSome();
    await waitFor('the deletion', async () => (await call('GET', deletionPath)).body.deletion.state === 'done');
    const receipt = (await call('GET', deletionPath)).body.deletion.receipt as Array<{ store: string; removed: number }>;
    expect(receipt.find((l) => l.store === 'curated_events')!.removed + receipt.find((l) => l.store === 'landing_events')!.removed).toBeGreaterThan(0);
    // Carol's last events compacted or not, the views show them once: the hour is open, they are in the tail.
    server.child.kill('SIGKILL');
    await server.exited;
    server = undefined;

    // The analysts' views as the server wrote them (views.sql), over the data directory.
    const duck = await testDuckDb();
    const views = readFileSync(join(dataDir, 'views.sql'), 'utf8');
    const rows = (sql: string) => duck.rows(sql, views);
    try {
      const [ann] = await rows(
        `SELECT (SELECT count(*) FROM events WHERE sent_user_id = 'ann' OR user_id = 'ann') AS events, (SELECT count(*) FROM curated_events WHERE sent_user_id = 'ann') AS curated`,
      );
      expect({ events: Number(ann!.events), curated: Number(ann!.curated) }).toEqual({ events: 0, curated: 0 });
      const perUser = await rows(
        `SELECT sent_user_id AS user, count(*) AS n, count(DISTINCT dedupe_key) AS d FROM events WHERE project_id = '${projectId}' GROUP BY 1`,
      );
      const found = new Map(perUser.map((r) => [String(r.user), { n: Number(r.n), d: Number(r.d) }]));
      for (const [user, n] of seeded) {
        if (user === 'ann') continue;
        expect(found.get(user), user).toEqual({ n, d: n });
      }
      const carol = await rows(`SELECT event_id FROM events WHERE project_id = '${projectId}' AND sent_user_id = 'carol'`);
      const carolIds = carol.map((r) => String(r.event_id));
      expect(new Set(carolIds).size, 'a Carol event twice').toBe(carolIds.length);
      expect(
        [...acknowledged].filter((id) => !carolIds.includes(id)),
        'acknowledged and lost',
      ).toEqual([]);
      expect(acknowledged.size).toBeGreaterThan(0);
    } finally {
      duck.close();
    }
  });
});
