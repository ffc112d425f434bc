/**
 * Loopback load: the local server (on-disk dynalite in its thread, local Firehose endpoint) in this
 * process, driven by load-client.ts in a child process with 20-event gzip batches.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer } from '../../../lambdas/local/server';
import type { LoadOptions, LoadResult } from './load-client';

const ADMIN_TOKEN = 'bench-admin-token-0123456789';

export async function loopback(requests: number, concurrency: number, batchSize?: number): Promise<LoadResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-bench-'));
  const server = await startLocalServer({ port: 0, dataDir, adminToken: ADMIN_TOKEN });
  try {
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/json' };
    const project = (await (await fetch(`${server.url}/admin/v1/projects`, { method: 'POST', headers: admin, body: '{"name":"bench"}' })).json()) as {
      id: string;
    };
    const { key } = (await (
      await fetch(`${server.url}/admin/v1/projects/${project.id}/keys`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ plan: 'enterprise', rate_limit_per_minute: 600_000 }),
      })
    ).json()) as { key: string };
    const client = fork(new URL('./load-client.ts', import.meta.url), { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const result = new Promise<LoadResult>((resolve, reject) => {
      client.once('message', (m) => resolve(m as LoadResult));
      client.once('exit', (code) => reject(new Error(`the load client exited with code ${code} before reporting`)));
    });
    client.send({ url: server.url, key, requests, concurrency, ...(batchSize ? { batchSize } : {}) } satisfies LoadOptions);
    return await result;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
