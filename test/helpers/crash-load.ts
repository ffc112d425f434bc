/**
 * The crash drill of issue 19: `npm start` as a child process under a 10-connection load of unique
 * events, killed with SIGKILL at random moments and restarted on the same data directory, while
 * the clients resend every batch that was not acknowledged (204), as an SDK does. Used by
 * test/e2e/crash.e2e.test.ts (a small run in `npm test`) and test/bench/crash.ts (`npm run
 * bench:crash`, 20,000 events).
 *
 * Each event is unique (its own user, name and millisecond), so any event the server lists or
 * stores more than once is a copy of one event, never two events that deduplicate.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import type { StoredEvent } from '../../lambdas/domain/event';
import { prng } from '../../bin/prng';

export const CRASH_ADMIN_TOKEN = 'crash-admin-token-0123456789';

export interface ServerChild {
  child: ChildProcess;
  url: string;
  /** Resolves with the exit code or signal once the process has exited. */
  exited: Promise<string>;
}

/** Starts `npm start` (bin/start.ts, or another entry printing its lines) as a child process on dataDir and waits for its URL. */
export function startServerChild(dataDir: string, env: Record<string, string> = {}, script = 'bin/start.ts'): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './lambdas/local/sql-text/register.mjs', script], {
    env: {
      ...process.env,
      PORT: '0',
      TALLY_DATA_DIR: dataDir,
      TALLY_ADMIN_TOKEN: CRASH_ADMIN_TOKEN,
      TALLY_LOG_LEVEL: 'error',
      TALLY_RESULTS_INTERVAL_SECONDS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? String(code))));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server printed no URL within 45 s:\n${out}`));
    }, 45_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Tally is running at (http:\/\/\S+)/.exec(out);
      if (m && out.includes('Press Ctrl+C')) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve({ child, url: m[1]!, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${how}) before printing its URL:\n${out}`));
    });
  });
}

export interface CrashLoadOptions {
  dataDir: string;
  /** Extra environment of the server (TALLY_CLAIM_LEASE_SECONDS, say). */
  env?: Record<string, string>;
  events: number;
  batchSize: number;
  connections: number;
  kills: number;
  /**
   * Each kill comes once this many batches (uniformly at random in the range) were acknowledged since
   * the previous (re)start, then 0-50 ms later: while the load flows, at a random point of the requests.
   */
  killAfterBatches: [number, number];
  /** After `kills`, keep killing (up to maxKills) until this says the drill has done enough. */
  enough?: () => boolean;
  maxKills?: number;
  seed: number;
  /** Progress lines (the bench prints them). */
  progress?: (line: string) => void;
}

export interface CrashLoadRun {
  /** The server as it runs after the last restart. */
  server: ServerChild;
  projectId: string;
  /** The running experiment "Crash Drill" (variants a and b) every event enrolls its user in. */
  experimentId: string;
  /** Every event sent, by event_id. */
  sent: Map<string, SentEvent>;
  /** Names the events were spread over, so each name's listing holds at most 1,000 of them. */
  names: string[];
  requests: number;
  /** Requests that failed (connection lost or refused, 5xx) and were sent again. */
  resends: number;
  statuses: Record<string, number>;
  kills: number;
  seconds: number;
}

export interface SentEvent {
  event_id: string;
  name: string;
  user_id: string;
  timestamp: string;
  /** The variant of the experiment "Crash Drill" the event enrolls its user in. */
  variant: 'a' | 'b';
}

/** The most events one listing returns (MAX_LISTING_LIMIT); names hold fewer, so a listing is complete. */
const PER_NAME = 500;

/** Runs the drill; on a failure, stops the clients and kills every server it started before rethrowing. */
export async function runCrashLoad(o: CrashLoadOptions): Promise<CrashLoadRun> {
  const started: ServerChild[] = [];
  const state = { aborted: false };
  const start = async () => {
    const child = await startServerChild(o.dataDir, o.env);
    started.push(child);
    return child;
  };
  try {
    return await drill(o, start, state);
  } catch (err) {
    state.aborted = true;
    for (const child of started) child.child.kill('SIGKILL');
    throw err;
  }
}

async function drill(o: CrashLoadOptions, start: () => Promise<ServerChild>, state: { aborted: boolean }): Promise<CrashLoadRun> {
  const started = performance.now();
  const random = prng(o.seed);
  let server: ServerChild | undefined = await start();
  let current: ServerChild = server;

  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(current.url + path, {
      method,
      headers: { Authorization: `Bearer ${CRASH_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const projectId = (await admin('POST', '/admin/v1/projects', { name: 'crash drill' })).id as string;
  const key = (await admin('POST', `/admin/v1/projects/${projectId}/keys`, { plan: 'enterprise', rate_limit_per_minute: 100_000 })).key as string;
  // Every event enrolls its user (the super property): the results count each user once.
  const experiments = `/admin/v1/projects/${projectId}/experiments`;
  const experimentId = (await admin('POST', experiments, { name: 'Crash Drill', goal_event: 'purchase', variants: ['a', 'b'] })).id as string;
  const startedAt = Date.parse((await admin('POST', `${experiments}/${experimentId}/start`)).started_at as string);

  const batches = Math.ceil(o.events / o.batchSize);
  const names = Array.from({ length: Math.ceil(o.events / PER_NAME) }, (_, i) => `crash_${i}`);
  const sent = new Map<string, SentEvent>();
  // One millisecond apart from the experiment's start: all in its window once the load is over.
  const base = startedAt + 1;
  const bodies: string[] = [];
  for (let b = 0; b < batches; b++) {
    const events: Array<Record<string, unknown>> = [];
    for (let i = 0; i < o.batchSize && b * o.batchSize + i < o.events; i++) {
      const n = b * o.batchSize + i;
      const e: SentEvent = {
        event_id: `crash-${n}`,
        name: names[Math.floor(n / PER_NAME)]!,
        user_id: `crash-user-${n}`,
        timestamp: new Date(base + n).toISOString(),
        variant: n % 2 ? 'b' : 'a',
      };
      sent.set(e.event_id, e);
      const { variant, ...fields } = e;
      events.push({ ...fields, properties: { n, $experiment_crash_drill: variant } });
    }
    bodies.push(JSON.stringify({ events }));
  }

  let agent = new Agent({ keepAlive: true, maxSockets: o.connections });
  const statuses: Record<string, number> = {};
  let requests = 0;
  let resends = 0;
  const send = (url: string, body: string) =>
    new Promise<number>((resolve) => {
      const { hostname, port } = new URL(url);
      const req = request(
        {
          host: hostname,
          port,
          path: '/v1/events',
          method: 'POST',
          agent,
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', () => resolve(0));
        },
      );
      // A lost connection (the server killed) is a failure like a 5xx: the batch is sent again.
      req.on('error', () => resolve(0));
      req.end(body);
    });

  let next = 0;
  let acknowledged = 0;
  const clients = Array.from({ length: o.connections }, async () => {
    while (next < bodies.length && !state.aborted) {
      const body = bodies[next++]!;
      for (let attempt = 0; !state.aborted; attempt++) {
        while (!server && !state.aborted) await sleep(50);
        if (!server) break;
        requests++;
        if (attempt > 0) resends++;
        const status = await send(server.url, body);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === 204) break;
        if (status !== 0 && status < 500) throw new Error(`a batch was refused with ${status}`);
        await sleep(100 + random() * 200);
      }
      acknowledged++;
    }
  });

  let kills = 0;
  const killer = (async () => {
    const more = () => kills < o.kills || (o.enough !== undefined && kills < (o.maxKills ?? o.kills) && !o.enough());
    for (; more(); kills++) {
      const [min, max] = o.killAfterBatches;
      const due = acknowledged + min + Math.floor(random() * (max - min + 1));
      while (acknowledged < due && acknowledged < batches && !state.aborted) await sleep(5);
      await sleep(random() * 50);
      // Asked again: the copies of the previous kill are stored once its lease has passed.
      if (acknowledged >= batches || state.aborted || !more()) break;
      const victim = server!;
      server = undefined;
      victim.child.kill('SIGKILL');
      await victim.exited;
      agent.destroy();
      agent = new Agent({ keepAlive: true, maxSockets: o.connections });
      o.progress?.(`  SIGKILL ${kills + 1} after ${acknowledged}/${batches} batches acknowledged; restarting`);
      current = await start();
      server = current;
    }
  })();

  await Promise.all([...clients, killer]);
  agent.destroy();
  return {
    server: current,
    projectId,
    experimentId,
    sent,
    names,
    requests,
    resends,
    statuses,
    kills,
    seconds: (performance.now() - started) / 1000,
  };
}

export interface CrashCheck {
  /** Sent events the listing does not show. */
  lost: number;
  /** Rows of the listing beyond the first for a deduplication key. */
  listedCopies: number;
  /** Lines of the raw files beyond the first for a deduplication key. */
  rawCopies: number;
  /** The users whose event the raw files hold more than once, and how many events the user listing (the dashboard's Users page) shows each. */
  usersWithCopies: Array<{ user_id: string; listed: number }>;
  /** The results (POST …/results/refresh), and what they would be with each user counted once. */
  results: { enrolled: Record<string, number>; multipleExposures: number; expected: Record<string, number> };
}

/**
 * Lists every event of the run through the admin API (one listing per name), the events of each user
 * whose event the raw files hold twice (user_id filter, as the Users page asks), and the experiment's
 * results; counts lost events and copies.
 */
export async function checkCrashRun(run: CrashLoadRun, rawEvents: StoredEvent[]): Promise<CrashCheck> {
  const admin = async (method: string, path: string) => {
    const res = await fetch(`${run.server.url}/admin/v1/projects/${run.projectId}${path}`, {
      method,
      headers: { Authorization: `Bearer ${CRASH_ADMIN_TOKEN}` },
    });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, any>;
  };
  const listed: StoredEvent[] = [];
  for (const name of run.names) listed.push(...(await admin('GET', `/events?${new URLSearchParams({ name, limit: '1000' })}`)).events);
  const listedIds = new Set(listed.map((e) => e.event_id));

  const copiesByKey = new Map<string, StoredEvent[]>();
  for (const e of rawEvents) copiesByKey.set(e.dedupe_key, [...(copiesByKey.get(e.dedupe_key) ?? []), e]);
  const usersWithCopies: CrashCheck['usersWithCopies'] = [];
  for (const copies of copiesByKey.values()) {
    if (copies.length < 2) continue;
    const user = copies[0]!.user_id!;
    usersWithCopies.push({ user_id: user, listed: (await admin('GET', `/events?${new URLSearchParams({ user_id: user })}`)).events.length });
  }

  const refreshed = await admin('POST', `/experiments/${run.experimentId}/results/refresh`);
  const expected: Record<string, number> = { a: 0, b: 0 };
  for (const e of run.sent.values()) expected[e.variant]!++;
  return {
    lost: [...run.sent.keys()].filter((id) => !listedIds.has(id)).length,
    listedCopies: listed.length - new Set(listed.map((e) => e.dedupe_key)).size,
    rawCopies: rawEvents.length - copiesByKey.size,
    usersWithCopies,
    results: {
      enrolled: Object.fromEntries((refreshed.variants as Array<{ variant: string; enrolled: number }>).map((v) => [v.variant, v.enrolled])),
      multipleExposures: refreshed.multiple_exposures as number,
      expected,
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
