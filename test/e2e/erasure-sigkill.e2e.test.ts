/**
 * The deletion SIGKILL drill (docs/decisions/erasure.md, "Steps, crash safety and overlap"): the local
 * server as a real child process on an on-disk data directory (test/helpers/deletion-kill-server.ts:
 * npm start's server with a test-only hook), killed with SIGKILL while a person's deletion runs, at
 * the start of each step and at random moments inside the rewriting steps, then started again on the
 * same directory. After each restart the deletion resumes and finishes, and nothing of the person is
 * left in any view (events, unique_events, identities, and the curated Parquet files and landing files
 * beneath them, read by DuckDB through views.sql), in the landing files or in the identities table,
 * while another person's events are all there exactly once. Meanwhile a third user's events are sent
 * throughout, resent when a kill lost the request (as the SDK does): every acknowledged one is there
 * exactly once at the end.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prng } from '../../bin/prng';
import { readCompactionState } from '../../lambdas/adapters/duckdb-stream-views';
import { landingHour } from '../../lambdas/contract/landing';
import { DELETION_STEPS } from '../../lambdas/domain/deletion';
import { CRASH_ADMIN_TOKEN, startServerChild, type ServerChild } from '../helpers/crash-load';
import { testDuckDb, type TestDuckDb } from '../helpers/duckdb';
import { writeLanding, writeLandingEvents } from '../helpers/landing';
import { UNTHROTTLED_KEY } from '../helpers/local';
import { personViewRows } from '../helpers/person-views';
import { storedEventFixture } from '../helpers/stored-event';

const SCRIPT = 'test/helpers/deletion-kill-server.ts';
const HOUR = 3_600_000;
const dataDir = mkdtempSync(join(tmpdir(), 'tally-erasure-sigkill-'));
let server: ServerChild | undefined;
let duck: TestDuckDb | undefined;
afterAll(async () => {
  if (server) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  duck?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const random = prng(41);
/** Where each drill kills: as every step begins, then at a random moment (0-60 ms) after each rewriting step began. */
const KILLS = [
  ...DELETION_STEPS,
  ...(['landing_events', 'curated_events', 'landing_identities', 'curated_identities'] as const).map((s) => `${s}+${Math.floor(random() * 60)}`),
];
const PEOPLE = KILLS.map((_, i) => `person-${i}`);
const idsOf = (person: string) => [person, `${person}-anon`];
/** Bob's events in the curated partitions (seeded) and the landing tail (sent). */
const BOB_SEEDED = 1_500;
const BOB_SENT = 20;
// Every event has its own millisecond: the deduplication key is the name, the user and the time.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every line of every file under landing/ (both streams, any name), as text. */
function landingLines(dir = join(dataDir, 'landing')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? landingLines(path) : readFileSync(path, 'utf8').split('\n');
  });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('SIGKILL of the local server while it deletes a person', () => {
  it('resumes each deletion after a restart and finishes it: nothing of the person anywhere, every other event there once', { timeout: 600_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const killLog = join(dataDir, 'drill-kills.log');
    const env = (kill?: { user: string; at: string }): Record<string, string> => ({
      PORT: String(port),
      DRILL_COMPACTION_INTERVAL_MS: '200',
      // A request lost to a kill leaves its events claimed: their resend is stored after this.
      TALLY_CLAIM_LEASE_SECONDS: '1',
      DRILL_SIGKILL_LOG: killLog,
      ...(kill ? { DRILL_SIGKILL_USER: kill.user, DRILL_SIGKILL_AT: kill.at } : {}),
    });
    const start = async (kill?: { user: string; at: string }) => (server = await startServerChild(dataDir, env(kill), SCRIPT));
    const stop = async () => {
      server!.child.kill('SIGKILL');
      await server!.exited;
      server = undefined;
    };
    const api = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(url + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const admin = (method: string, path: string, body?: unknown) => api(method, path, CRASH_ADMIN_TOKEN, body);

    // A project; its people's and Bob's older events and links landed in closed hours (compacted into
    // curated partitions at the next start), then the people's $identify and events through the API
    // (the identities table, and the landing tail).
    await start();
    const project = (await admin('POST', '/admin/v1/projects', { name: 'erasure sigkill' })).body.id as string;
    const key = (await admin('POST', `/admin/v1/projects/${project}/keys`, UNTHROTTLED_KEY)).body.key as string;
    await stop();
    const hours = [landingHour(Date.now() - 4 * HOUR), landingHour(Date.now() - 3 * HOUR)];
    const received = (h: number) => new Date(Date.now() - (4 - h) * HOUR).toISOString();
    for (const [h, hour] of hours.entries()) {
      const day = (n: number) => `2026-10-${String(1 + (n % 20)).padStart(2, '0')}T10:00:00.000Z`;
      const people = PEOPLE.flatMap((p, i) =>
        idsOf(p).map((id, j) =>
          storedEventFixture({
            project_id: project,
            dedupe_key: `${p}-${h}-${j}`,
            name: 'view',
            user_id: p,
            sent_user_id: id,
            timestamp: day(i + j),
            received_at: received(h),
          }),
        ),
      );
      const bob = Array.from({ length: BOB_SEEDED / 2 }, (_, n) =>
        storedEventFixture({
          project_id: project,
          dedupe_key: `bob-${h}-${n}`,
          event_id: `bob-${h}-${n}`,
          name: 'view',
          user_id: 'bob',
          sent_user_id: 'bob',
          timestamp: day(n),
          received_at: received(h),
        }),
      );
      writeLandingEvents(dataDir, [...people, ...bob], { hour, file: 'seeded.ndjson' });
      if (h === 0) {
        const links = PEOPLE.map((p) => ({ project_id: project, id: `${p}-anon`, canonical_id: p, version: 1, timestamp: received(h), reason: 'link' }));
        writeLanding(dataDir, 'identities', links, { hour, file: 'seeded.ndjson' });
      }
    }
    await start();
    const send = async (events: unknown[]) => {
      const res = await api('POST', '/v1/events', key, { events });
      expect(res.status, JSON.stringify(res.body)).toBe(204);
    };
    for (const p of PEOPLE) {
      await send([
        { name: '$identify', user_id: p, timestamp: '2026-10-25T10:00:00Z', properties: { $anonymous_id: `${p}-anon`, email: `${p}@example.com` } },
        { name: 'view', user_id: p, timestamp: '2026-10-25T10:01:00Z' },
      ]);
    }
    await send(
      Array.from({ length: BOB_SENT }, (_, n) => ({
        name: 'tap',
        event_id: `bob-sent-${n}`,
        user_id: 'bob',
        timestamp: new Date(Date.parse('2026-10-26T10:00:00Z') + n).toISOString(),
      })),
    );
    for (const stream of ['events', 'identities'] as const) {
      const deadline = Date.now() + 120_000;
      while ((await readCompactionState(dataDir, stream)).compactedThrough === undefined) {
        if (Date.now() > deadline) throw new Error(`the ${stream} hours were not compacted within 2 minutes`);
        await sleep(200);
      }
    }

    duck = await testDuckDb();
    const count = async (sql: string) => Number((await duck!.rows(sql, readFileSync(join(dataDir, 'views.sql'), 'utf8')))[0]!.n);
    /** The person's rows in every view and beneath them, in the landing files and in the identities table. */
    const left = async (ids: string[]) => ({
      ...(await personViewRows(duck!, readFileSync(join(dataDir, 'views.sql'), 'utf8'), ids, project)),
      landing_files: landingLines().filter((line) => ids.some((id) => line.includes(JSON.stringify(id)))).length,
      identities_table: (await Promise.all(ids.map((id) => admin('GET', `/admin/v1/projects/${project}/users/${id}`)))).filter((r) => r.status !== 404).length,
    });
    const NOTHING = {
      events: 0,
      unique_events: 0,
      landing_events: 0,
      curated_events: 0,
      identities: 0,
      curated_identities: 0,
      landing_files: 0,
      identities_table: 0,
    };
    const bob = async () => ({
      events: await count(`SELECT count(*) AS n FROM events WHERE project_id = '${project}' AND user_id = 'bob'`),
      distinct: await count(`SELECT count(DISTINCT dedupe_key) AS n FROM events WHERE project_id = '${project}' AND user_id = 'bob'`),
      unique_events: await count(`SELECT count(*) AS n FROM unique_events WHERE project_id = '${project}' AND user_id = 'bob'`),
    });
    const BOB = BOB_SEEDED + BOB_SENT;
    expect(await bob()).toEqual({ events: BOB, distinct: BOB, unique_events: BOB });
    for (const p of PEOPLE) {
      const before = await left(idsOf(p));
      expect(before.curated_events, p).toBe(4);
      expect(before.events, p).toBe(6);
      expect(before.curated_identities, p).toBeGreaterThan(0);
      expect(before.identities_table, p).toBe(2);
    }

    // Carol's events, sent all along in batches of 5; a batch not acknowledged (the server killed,
    // refused, or its events still claimed by a lost request: 503) is sent again, as the SDK does.
    const acknowledged: string[] = [];
    let sending = true;
    let resends = 0;
    // Paused while the checks read the files (a line being appended is not whole yet).
    let paused: Promise<void> | undefined;
    let idle: (() => void) | undefined;
    const carol = (async () => {
      for (let b = 0; sending; b++) {
        if (paused) {
          idle?.();
          await paused;
        }
        const events = Array.from({ length: 5 }, (_, i) => ({
          name: 'tap',
          event_id: `carol-${b}-${i}`,
          user_id: 'carol',
          // Each its own millisecond: distinct events (the deduplication key is name, user and time).
          timestamp: new Date(Date.parse('2026-10-27T10:00:00Z') + b * 5 + i).toISOString(),
        }));
        for (;;) {
          const status = await api('POST', '/v1/events', key, { events }).then(
            (r) => r.status,
            () => 0,
          );
          if (status === 204) break;
          if (status !== 0 && status < 500) throw new Error(`a batch of carol's was refused with ${status}`);
          resends++;
          await sleep(100);
        }
        acknowledged.push(...events.map((e) => e.event_id));
        await sleep(20);
      }
    })();

    const kills: string[] = [];
    for (const [i, at] of KILLS.entries()) {
      const person = PEOPLE[i]!;
      await stop();
      await start({ user: person, at });
      const asked = await admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: person }).catch(() => undefined);
      const how = await Promise.race([server!.exited, sleep(120_000).then(() => 'still running')]);
      expect(how, `the kill at ${at}`).toBe('SIGKILL');
      kills.push(at);
      server = undefined;
      await start();
      // The deletion's ID (the answer may have been lost to the kill: then the project's list has it).
      const listed = async () =>
        ((await admin('GET', `/admin/v1/projects/${project}/deletions`)).body.deletions as Array<{ id: string; user_id: string }>).find(
          (d) => d.user_id === person,
        )!.id;
      const id = asked?.status === 202 ? (asked.body.deletion.id as string) : await listed();
      const deadline = Date.now() + 120_000;
      let deletion: Record<string, any>;
      for (;;) {
        deletion = (await admin('GET', `/admin/v1/projects/${project}/deletions/${id}`)).body.deletion;
        if (deletion.state === 'done') break;
        if (Date.now() > deadline)
          throw new Error(`the deletion killed at ${at} did not finish within 2 minutes after the restart: ${JSON.stringify(deletion)}`);
        await sleep(200);
      }
      let resume!: () => void;
      paused = new Promise((resolve) => (resume = resolve));
      await new Promise<void>((resolve) => (idle = resolve));
      expect(deletion.ids, at).toEqual(idsOf(person).sort());
      expect(
        deletion.receipt.map((l: { store: string }) => l.store),
        at,
      ).toEqual(DELETION_STEPS.filter((s) => s !== 'ids'));
      expect(await left(idsOf(person)), at).toEqual(NOTHING);
      expect(await bob(), at).toEqual({ events: BOB, distinct: BOB, unique_events: BOB });
      paused = undefined;
      idle = undefined;
      resume();
    }
    expect(kills).toEqual(KILLS);
    // Where each kill landed: the step killed at as it began; a timed kill in the step it was in.
    const landed = readFileSync(killLog, 'utf8').trim().split('\n');
    expect(landed.slice(0, DELETION_STEPS.length)).toEqual(DELETION_STEPS);
    expect(landed).toHaveLength(KILLS.length);

    // The people not deleted yet (none) and Bob; Carol's acknowledged events, each once.
    sending = false;
    await carol;
    await sleep(500);
    const carolRows = await duck.rows(
      `SELECT event_id, count(*) AS n FROM events WHERE project_id = '${project}' AND user_id = 'carol' GROUP BY event_id`,
      readFileSync(join(dataDir, 'views.sql'), 'utf8'),
    );
    const seen = new Map(carolRows.map((r) => [String(r.event_id), Number(r.n)]));
    expect(acknowledged.length).toBeGreaterThan(KILLS.length * 5);
    expect(acknowledged.filter((e) => !seen.has(e))).toEqual([]);
    expect([...seen.values()].filter((n) => n !== 1)).toEqual([]);
    expect(await count(`SELECT count(*) AS n FROM unique_events WHERE project_id = '${project}' AND user_id = 'carol'`)).toBe(seen.size);
    expect(resends).toBeGreaterThan(0);
  });
});
