/**
 * The local server's query engine runs DuckDB in a process of its own at a lower priority
 * (lambdas/local/duckdb-process.ts): a heavy insight uses the CPU the server leaves, so ingestion keeps
 * its latency (npm run bench:blocking prints the figures). What a user of `npm start` relies on:
 * answers as in-process DuckDB gives them, every thread of the query process below the server's
 * priority, and a server that survives the engine dying (the query in flight fails saying so, the next
 * one works).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { DuckDbProcess } from '../../lambdas/local/duckdb-process';
import { streamViews } from '../../lambdas/adapters/duckdb-stream-views';
import { compactClosedHours, writeLandingEvents } from '../helpers/landing';
import { storedEventFixture } from '../helpers/stored-event';

const engines: DuckDbProcess[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});
function engine(options: ConstructorParameters<typeof DuckDbProcess>[0] = {}): DuckDbProcess {
  const made = new DuckDbProcess(options);
  engines.push(made);
  return made;
}

/** The query process's ID, once started (its only child running duckdb-process-child.mjs). */
async function childPid(process: DuckDbProcess): Promise<number> {
  const running = await (process as unknown as { child: Promise<{ child: { pid: number } }> | undefined }).child;
  if (!running) throw new Error('the query process has not started');
  return running.child.pid;
}

describe('DuckDbProcess', () => {
  it('answers as DuckDB in this process does: the same rows, counts as bigint, the views and macros of a session', async () => {
    // Events in two landing hours, the first of them compacted: the session's views are the three
    // kinds (curated Parquet, landing NDJSON, and the events view over both).
    const dataDir = mkdtempSync(join(tmpdir(), 'tally-duckdb-process-'));
    const event = (i: number, name: string, user: string, received: string) =>
      storedEventFixture({
        project_id: 'p',
        dedupe_key: `k${i}`,
        name,
        user_id: user,
        sent_user_id: user,
        timestamp: '2026-04-01T10:00:00.000Z',
        received_at: received,
      });
    writeLandingEvents(dataDir, [event(1, 'a', 'u1', '2026-04-01T10:00:01.000Z'), event(2, 'a', 'u2', '2026-04-01T10:00:02.000Z')]);
    writeLandingEvents(dataDir, [event(3, 'b', 'u1', '2026-04-01T11:00:01.000Z'), event(1, 'a', 'u1', '2026-04-01T11:00:02.000Z')]);
    const compactor = new InProcessDuckDb({ threads: '1' });
    await compactClosedHours(dataDir, compactor, Date.parse('2026-04-01T11:30:00.000Z'));
    await compactor.close();
    const views = await streamViews(dataDir, 'events', { projectId: 'p' });
    expect(views.map((v) => ('parquet' in v ? v.parquet.length : 'landing' in v ? v.landing.length : 'sql'))).toEqual([1, 1, 'sql', 'sql']);
    const sql = 'SELECT name, count(*) AS n, count(DISTINCT user_id) AS users FROM events GROUP BY name ORDER BY name';
    const inProcess = new InProcessDuckDb({ threads: '1' });
    const expected = await inProcess.use(views, (session) => session.rows(sql));
    await inProcess.close();
    const rows = await engine({ threads: 1 }).use(views, (session) => session.rows(sql));
    expect(rows).toEqual(expected);
    expect(rows).toEqual([
      { name: 'a', n: 2n, users: 2n },
      { name: 'b', n: 1n, users: 1n },
    ]);
  });

  it.runIf(existsSync('/proc/self/task'))('runs every thread of its process at niceness 10, below the server', async () => {
    const queries = engine({ threads: 2 });
    await queries.use([], (session) => session.rows('SELECT 1'));
    const pid = await childPid(queries);
    const niceness = readdirSync(`/proc/${pid}/task`).map((thread) =>
      Number(readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
    );
    expect(niceness.length).toBeGreaterThan(2);
    expect(new Set(niceness)).toEqual(new Set([10]));
  });

  it('fails the query in flight when its process dies, saying so, and starts a new one for the next query', async () => {
    const queries = engine({ threads: 1 });
    await queries.use([], (session) => session.rows('SELECT 1'));
    const pid = await childPid(queries);
    const long = queries.use([], (session) => session.rows('SELECT count(*) FROM range(20000000000) t(x) WHERE x % 7 = 3'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(pid, 'SIGKILL');
    await expect(long).rejects.toThrow(/the local query engine \(DuckDB\) stopped \(SIGKILL\); the next query starts it again/);
    expect(await queries.use([], (session) => session.rows('SELECT 42 AS answer'))).toEqual([{ answer: 42 }]);
    expect(await childPid(queries)).not.toBe(pid);
  });

  it('writes a result file only when every figure is finite, and says which is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-duckdb-process-'));
    const queries = engine({ threads: 1 });
    const good = join(dir, 'good.json');
    expect(await queries.use([], (session) => session.writeRows('SELECT 7::BIGINT AS events, 2.5 AS value_sum', good))).toBe(1);
    expect(JSON.parse(readFileSync(good, 'utf8'))).toEqual([{ events: 7, value_sum: 2.5 }]);
    const bad = join(dir, 'bad.json');
    await expect(queries.use([], (session) => session.writeRows("SELECT CAST('inf' AS double) AS value_sum", bad))).rejects.toThrow(
      /returned Infinity in value_sum, not a finite number/,
    );
    expect(readdirSync(dir)).toEqual(['good.json']);
  });

  it("passes a query error on with DuckDB's message", async () => {
    await expect(engine({ threads: 1 }).use([], (session) => session.rows('SELECT * FROM no_such_table'))).rejects.toThrow(/no_such_table/);
  });
});
