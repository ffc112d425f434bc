/** `npm start` as a user runs it: a child process that prints its URL, keeps data across restarts, and stops cleanly. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/until';

const dataDir = mkdtempSync(join(tmpdir(), 'tally-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

function start(env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './lambdas/local/sql-text/register.mjs', 'bin/start.ts'], {
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
    expect(first.output()).toContain(`admin token:    ${token}  (generated on this first start; kept in ${join(dataDir, 'admin-token')})`);
    expect(first.output()).not.toContain('reused');
    expect(first.output()).toContain(`dashboard:      ${first.url}/  (open it and sign in with the admin token below)`);
    expect((await fetch(`${first.url}/`)).headers.get('content-type')).toBe('text/html; charset=utf-8');
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const project = (await (await fetch(`${first.url}/admin/v1/projects`, { method: 'POST', headers: auth, body: '{"name":"persisted"}' })).json()) as {
      id: string;
    };
    expect(await stop(first, 'SIGTERM')).toBe(0);
    expect(first.output()).toMatch(/Stopped\./);

    const second = await start();
    // The same token, and the banner says where it came from.
    expect(second.output()).toContain(`admin token:    ${token}  (reused: kept in ${join(dataDir, 'admin-token')} since the first start)`);
    expect(second.output()).not.toContain('generated');
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

  it('checks every variable with its range and names the variable, the value and the problem, without a stack trace', async () => {
    const failure = await start({
      PORT: '70000',
      TALLY_HOST: 'not a host!',
      TALLY_ADMIN_TOKEN: 'short',
      TALLY_TRUST_PROXY: 'yes',
      TALLY_LOG_LEVEL: 'verbose',
      TALLY_RESULTS_INTERVAL_SECONDS: '3000000',
      TALLY_GEOIP_DB: 'README.md',
    }).then(
      () => {
        throw new Error('started with invalid configuration');
      },
      (err: Error) => err.message,
    );
    expect(failure).toMatch(/^exited with 2:/);
    expect(failure).toMatch(/Invalid configuration: PORT="70000": must be a whole number from 0 to 65535/);
    expect(failure).toMatch(/Invalid configuration: TALLY_HOST="not a host!": must be an IP address/);
    expect(failure).toMatch(/Invalid configuration: TALLY_ADMIN_TOKEN=\(5 characters\): must be 16 to 512 characters/);
    expect(failure).toMatch(/Invalid configuration: TALLY_TRUST_PROXY="yes": must be 0 .* or 1/);
    expect(failure).toMatch(/Invalid configuration: TALLY_LOG_LEVEL="verbose": must be one of debug, info, warn, error, silent/);
    expect(failure).toMatch(/Invalid configuration: TALLY_RESULTS_INTERVAL_SECONDS="3000000": must be a whole number from 1 to 86400/);
    expect(failure).toMatch(/Invalid configuration: TALLY_GEOIP_DB=".*README\.md": is not a MaxMind database \(\.mmdb\)/);
    expect(failure).not.toContain('short'); // the token's value is never printed
    expect(failure).not.toMatch(/\n\s+at /);
  });

  it('names TALLY_GEOIP_DB and the path when it is a directory or missing', async () => {
    await expect(start({ TALLY_GEOIP_DB: 'test/fixtures/geoip' })).rejects.toThrow(
      /TALLY_GEOIP_DB=".*test\/fixtures\/geoip": is a directory; set it to the \.mmdb file/,
    );
    await expect(start({ TALLY_GEOIP_DB: 'no/such.mmdb' })).rejects.toThrow(/TALLY_GEOIP_DB=".*no\/such\.mmdb": no such file/);
  });

  it('names PORT when the port is taken, without a stack trace, and creates nothing (no data directory, no token)', async () => {
    const first = await start();
    const port = new URL(first.url).port;
    const parent = mkdtempSync(join(tmpdir(), 'tally-start-'));
    const other = join(parent, 'data');
    const failure = await start({ PORT: port, TALLY_DATA_DIR: other }).catch((err: Error) => err.message);
    const created = existsSync(other);
    rmSync(parent, { recursive: true, force: true });
    expect(await stop(first, 'SIGTERM')).toBe(0);
    expect(failure).toMatch(new RegExp(`^exited with 1:[\\s\\S]*Tally could not start: PORT=${port}: the port is already in use`));
    expect(failure).not.toMatch(/\n\s+at /);
    expect(failure).not.toContain('admin token');
    expect(created, 'the data directory was created').toBe(false);
  });

  it('prints one short line per request, never the path as sent, and reminds of the address and the token file as traffic scrolls', async () => {
    const run = await start({ TALLY_LOG_LEVEL: 'info' });
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const banner = run.output();
    const project = (await (await fetch(`${run.url}/admin/v1/projects`, { method: 'POST', headers: auth, body: '{"name":"terminal"}' })).json()) as {
      id: string;
    };
    // A user ID in the path, and a wrong key: neither may reach the terminal.
    expect((await fetch(`${run.url}/admin/v1/projects/${project.id}/users/alice.secret@example.com`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${run.url}/v1/events`, { method: 'POST', headers: { Authorization: 'Bearer tally_wrong_key_123' }, body: '{}' })).status).toBe(401);
    for (let i = 0; i < 30; i++) await fetch(`${run.url}/admin/v1/projects`, { headers: auth });
    await until(() => run.output().split('GET /admin/v1/projects 200').length > 30 || undefined, 15_000, '30 request lines');
    expect(await stop(run, 'SIGTERM')).toBe(0);

    const lines = run.output().slice(banner.length).split('\n').filter(Boolean);
    expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d POST \/admin\/v1\/projects 201 \d+ ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d GET \/admin\/v1\/projects\/\{project_id\}\/users\/\{id\} 404 \d+ ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/^\d\d:\d\d:\d\d POST \/v1\/events 401 \d+ ms · key refused: unknown or revoked key$/));
    expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
    const reminder = `-- Tally at ${run.url}/ (dashboard and API); sign in with the admin token in ${join(dataDir, 'admin-token')}`;
    expect(lines).toContain(reminder);
    const output = run.output();
    expect(output).not.toContain('alice.secret');
    expect(output).not.toContain('tally_wrong_key');
    // The token itself is printed once, in the banner, not in each reminder.
    expect(output.split(token).length - 1).toBe(1);
  });

  it("gives a batch's event count and project, says why a key was refused, and names the results job only when results changed", async () => {
    const run = await start({ TALLY_LOG_LEVEL: 'info', TALLY_RESULTS_INTERVAL_SECONDS: '1' });
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const admin = async (method: string, path: string, body?: unknown) =>
      (
        await fetch(`${run.url}/admin/v1${path}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) })
      ).json() as Promise<any>;
    const send = (key: string | undefined, events: unknown[], headers: Record<string, string> = {}) =>
      fetch(`${run.url}/v1/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers },
        body: JSON.stringify({ events }),
      });
    const banner = run.output();
    const project = await admin('POST', '/projects', { name: 'terminal lines' });
    const key = (await admin('POST', `/projects/${project.id}/keys`, { plan: 'enterprise' })).key as string;
    const webKey = (await admin('POST', `/projects/${project.id}/keys`, { allowed_origins: ['https://app.example.org'] })).key as string;
    const appKey = (await admin('POST', `/projects/${project.id}/keys`, { allowed_bundle_ids: ['org.example.app'] })).key as string;
    const revoked = await admin('POST', `/projects/${project.id}/keys`, {});
    await fetch(`${run.url}/admin/v1/projects/${project.id}/keys/${revoked.id}`, { method: 'DELETE', headers: auth });

    const secret = 'client-secret-user';
    const events = (variant: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        name: '$experiment_exposure',
        user_id: `${secret}-${variant}-${i}`,
        properties: { $experiment_name: 'Checkout', $variant: variant },
      }));
    expect((await send(key, [...events('control', 2), { name: 'page_viewed', user_id: secret }])).status).toBe(204);
    expect((await send(undefined, [])).status).toBe(401);
    expect((await send('tally_made_up_key_456', [])).status).toBe(401);
    expect((await send(revoked.key, [])).status).toBe(401);
    expect((await send(webKey, [], { Origin: 'https://evil.example.net' })).status).toBe(403);
    expect((await send(appKey, [])).status).toBe(403);
    expect((await send(appKey, [], { 'X-Tally-Bundle-ID': 'net.example.other' })).status).toBe(403);

    const experiment = await admin('POST', `/projects/${project.id}/experiments`, {
      name: 'Checkout',
      goal_event: 'purchase',
      variants: ['control', 'treatment'],
    });
    await admin('POST', `/projects/${project.id}/experiments/${experiment.id}/start`);
    const jobLines = () =>
      run
        .output()
        .slice(banner.length)
        .split('\n')
        .filter((l) => /^\d\d:\d\d:\d\d results job: /.test(l));
    // The first run computes the experiment's results: one line.
    await until(() => jobLines().length >= 1 || undefined, 20_000, 'a results job line');
    // Several more runs over the same events: recomputed, nothing changed, no line.
    await new Promise((r) => setTimeout(r, 3_500));
    expect(jobLines()).toHaveLength(1);
    // New events that change the results: one more line.
    expect((await send(key, events('treatment', 4))).status).toBe(204);
    await until(() => jobLines().length >= 2 || undefined, 20_000, 'a second results job line');
    expect(await stop(run, 'SIGTERM')).toBe(0);

    const lines = run.output().slice(banner.length).split('\n').filter(Boolean);
    const t = '\\d\\d:\\d\\d:\\d\\d POST \\/v1\\/events';
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${t} 204 \\d+ ms · 3 events · project ${project.id}$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${t} 204 \\d+ ms · 4 events · project ${project.id}$`)));
    for (const reason of ['no key sent', 'unknown or revoked key', 'origin not allowed', 'bundle ID missing', 'bundle ID not allowed']) {
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${t} 40[13] \\d+ ms · key refused: ${reason}$`)));
    }
    expect(lines.filter((l) => / 401 .*unknown or revoked key$/.test(l))).toHaveLength(2);
    expect(jobLines()).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d results job: results changed for 1 experiment, 0 failed, 0 left for the next run$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d results job: results changed for 1 experiment, 0 failed, 0 left for the next run$/),
    ]);
    const output = run.output();
    for (const sent of [secret, 'tally_made_up_key', key, webKey, appKey, revoked.key, 'evil.example.net', 'net.example.other', 'Checkout']) {
      expect(output).not.toContain(sent);
    }
  });

  it('prints JSON lines instead with TALLY_LOG_FORMAT=json', async () => {
    const run = await start({ TALLY_LOG_LEVEL: 'info', TALLY_LOG_FORMAT: 'json' });
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const banner = run.output();
    await fetch(`${run.url}/admin/v1/projects`, { headers: { Authorization: `Bearer ${token}` } });
    await until(() => run.output().includes('"msg":"request"') || undefined, 15_000, 'a JSON request line');
    expect(await stop(run, 'SIGTERM')).toBe(0);
    const line = run
      .output()
      .slice(banner.length)
      .split('\n')
      .find((l) => l.includes('"msg":"request"'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 'info', msg: 'request', route: 'admin-projects-list', status: 200 });
  });
});
