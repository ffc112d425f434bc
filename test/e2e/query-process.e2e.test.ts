/**
 * `npm start` runs its requests' DuckDB queries in a process of its own (lambdas/local/duckdb-process.ts).
 * A user stopping the server, or a crash killing it, must not leave that process behind holding CPU
 * and memory: it ends with the server, whether the server closes (Ctrl+C) or is killed (SIGKILL).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CRASH_ADMIN_TOKEN, startServerChild, type ServerChild } from '../helpers/crash-load';

/** The processes whose parent is `pid` and whose command line runs the query process's script. */
function queryProcesses(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
        return ppid === pid && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('duckdb-process-child.mjs');
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** Starts the server and makes it run one query (the events listing), so its query process starts. */
async function serverWithQueryProcess(): Promise<{ server: ServerChild; queries: number }> {
  const server = await startServerChild(mkdtempSync(join(tmpdir(), 'tally-query-process-')));
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method,
      headers: { Authorization: `Bearer ${CRASH_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown>;
  };
  const project = (await admin('POST', '/admin/v1/projects', { name: 'query process' })).id as string;
  const key = (await admin('POST', `/admin/v1/projects/${project}/keys`, {})).key as string;
  const sent = await fetch(`${server.url}/v1/events`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ events: [{ name: 'opened', user_id: 'u1' }] }),
  });
  expect(sent.status).toBe(204);
  const listed = await admin('GET', `/admin/v1/projects/${project}/events`);
  expect(JSON.stringify(listed)).toContain('opened');
  const queries = queryProcesses(server.child.pid!);
  expect(queries).toHaveLength(1);
  return { server, queries: queries[0]! };
}

describe.runIf(existsSync('/proc/self/stat'))('the local query process ends with the server', () => {
  it('when the server is killed (SIGKILL)', async () => {
    const { server, queries } = await serverWithQueryProcess();
    server.child.kill('SIGKILL');
    await server.exited;
    expect(await until(() => !alive(queries), 10_000)).toBe(true);
  });

  it('when the server stops (Ctrl+C)', async () => {
    const { server, queries } = await serverWithQueryProcess();
    server.child.kill('SIGINT');
    expect(await server.exited).toBe('0');
    expect(await until(() => !alive(queries), 10_000)).toBe(true);
  });
});
