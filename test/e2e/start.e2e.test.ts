/** `npm start` as a user runs it: a child process that prints its URL, keeps data across restarts, and stops cleanly. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

function start(env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts'], {
    env: { ...process.env, PORT: '0', TALLY_DATA_DIR: dataDir, TALLY_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed:\n${out}`)), 20_000);
    child.stdout!.on('data', () => {
      const m = /Tally is running at (http:\/\/\S+)/.exec(out);
      if (m && out.includes('Press Ctrl+C')) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, output: () => out });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${out}`));
    });
  });
}

function stop(run: Running, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    run.child.removeAllListeners('exit');
    run.child.on('exit', (code) => resolve(code));
    run.child.kill(signal);
  });
}

describe('npm start', () => {
  it('generates and prints an admin token, keeps data across a restart, and stops cleanly on SIGTERM and SIGINT', async () => {
    const first = await start();
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    expect(first.output()).toContain(token);
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const project = (await (await fetch(`${first.url}/admin/v1/projects`, { method: 'POST', headers: auth, body: '{"name":"persisted"}' })).json()) as { id: string };
    expect(await stop(first, 'SIGTERM')).toBe(0);
    expect(first.output()).toMatch(/Stopped\./);

    const second = await start();
    const list = (await (await fetch(`${second.url}/admin/v1/projects`, { headers: auth })).json()) as { projects: Array<{ id: string }> };
    expect(list.projects.map((p) => p.id)).toContain(project.id);
    expect(await stop(second, 'SIGINT')).toBe(0);
  });

  it('refuses a second server on the same data directory with a clear message', async () => {
    const first = await start();
    await expect(start()).rejects.toThrow(/Another Tally server \(pid \d+\) is using the data directory/);
    expect(await stop(first, 'SIGTERM')).toBe(0);
  });

  it('reports invalid configuration by variable name', async () => {
    await expect(start({ PORT: 'eighty' })).rejects.toThrow(/Invalid configuration: PORT/);
  });
});
