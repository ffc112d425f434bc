/**
 * npm run bench:ingest — a benchmark, not a test: prints figures, asserts nothing.
 *
 * 1. Loopback load: the local server (on-disk dynalite, local Firehose endpoint) driven with
 *    20-event gzip batches; events/s, p50/p99 latency, 5xx count.
 * 2. Handler CPU per event with storage stubbed out, as a ratio to JSON.parse of the same bytes,
 *    measured in one process in the same run.
 *
 * BENCH_REQUESTS (default 500) and BENCH_CONCURRENCY (default 16) scale part 1.
 */
import '../../bin/node-version';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createIngestHandler } from '../../lambdas/handlers/ingest';
import { UNKNOWN_GEO } from '../../lambdas/domain/geo';
import { startLocalServer } from '../../lambdas/local/server';
import type { HttpEvent } from '../../lambdas/http/event';

process.env.TALLY_LOG_LEVEL ??= 'silent';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const BATCH = 20;

function batch(seed: number): Buffer {
  const events = Array.from({ length: BATCH }, (_, i) => ({
    name: i % 4 === 0 ? 'page_view' : 'button_click',
    event_id: `${seed}-${i}`,
    user_id: `user-${seed % 997}`,
    session_id: `s-${seed % 101}`,
    timestamp: 1767225600000 + seed * BATCH + i,
    properties: { path: '/pricing', plan: 'pro', button: `cta-${i}`, experiment: { name: 'checkout-flow', variant: 'b' } },
  }));
  return Buffer.from(JSON.stringify({ context: { platform: 'web', app_version: '4.2.0', locale: 'en-GB' }, events }));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function loopback() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-bench-'));
  const server = await startLocalServer({ port: 0, dataDir, adminToken: 'bench-admin-token-0123456789' });
  const admin = { Authorization: 'Bearer bench-admin-token-0123456789', 'Content-Type': 'application/json' };
  const project = (await (await fetch(`${server.url}/admin/v1/projects`, { method: 'POST', headers: admin, body: '{"name":"bench"}' })).json()) as {
    id: string;
  };
  const key = (await (
    await fetch(`${server.url}/admin/v1/projects/${project.id}/keys`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ plan: 'enterprise', rate_limit_per_minute: 600_000 }),
    })
  ).json()) as { key: string };

  const bodies = Array.from({ length: REQUESTS }, (_, i) => gzipSync(batch(i)));
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const { port } = new URL(server.url);
  const send = (body: Buffer) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/events',
          method: 'POST',
          agent,
          headers: {
            Authorization: `Bearer ${key.key}`,
            'Content-Type': 'application/json',
            'Content-Encoding': 'gzip',
            'Content-Length': body.length,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const latencies: number[] = [];
  let errors5xx = 0;
  let other = 0;
  let next = 0;
  const started = performance.now();
  let lastReport = started;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const i = next++;
        const t = performance.now();
        const status = await send(bodies[i]!);
        latencies.push(performance.now() - t);
        if (status >= 500) errors5xx++;
        else if (status !== 204) other++;
        if (performance.now() - lastReport > 2000) {
          lastReport = performance.now();
          process.stderr.write(`  … ${latencies.length}/${REQUESTS} requests\n`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  return { seconds, eventsPerSecond: (REQUESTS * BATCH) / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors5xx, other };
}

async function handlerCpu() {
  const handler = createIngestHandler('v1', {
    ledger: { claim: async () => 'claimed', release: async () => undefined, markStored: async () => undefined },
    sink: { put: async () => undefined },
    identities: {
      observe: async (_p, ids) => new Map(ids.map((id) => [id, id])),
      link: async (_p, a) => ({ canonical: a, moved: [] }),
      group: async () => undefined,
      updateProfile: async () => undefined,
    },
    identitySink: { put: async () => undefined },
    geo: { lookup: () => UNKNOWN_GEO },
    clock: Date.now,
  });
  const json = batch(1);
  const gz = gzipSync(json);
  const event = {
    body: gz.toString('base64'),
    isBase64Encoded: true,
    headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    requestContext: { requestId: 'bench', authorizer: { project_id: 'p', key_id: 'k' }, identity: { sourceIp: '127.0.0.1' } },
  } as unknown as HttpEvent;
  const context = { getRemainingTimeInMillis: () => 10_000 } as never;
  const text = json.toString('utf8');

  const rounds = 3000;
  for (let i = 0; i < 300; i++) {
    await handler(event, context);
    JSON.parse(text);
  }
  let cpu = process.cpuUsage();
  for (let i = 0; i < rounds; i++) JSON.parse(text);
  const parsed = process.cpuUsage(cpu);
  const parseUs = (parsed.user + parsed.system) / rounds;
  cpu = process.cpuUsage();
  for (let i = 0; i < rounds; i++) await handler(event, context);
  const used = process.cpuUsage(cpu);
  const handlerUs = (used.user + used.system) / rounds;
  return { handlerUsPerEvent: handlerUs / BATCH, parseUsPerEvent: parseUs / BATCH, ratio: handlerUs / parseUs, bytes: json.length, gzBytes: gz.length };
}

const cpu = await handlerCpu();
if (process.env.BENCH_CPU_ONLY) {
  console.log(JSON.stringify(cpu));
  process.exit(0);
}
console.log(
  `handler CPU (storage stubbed): ${cpu.handlerUsPerEvent.toFixed(2)} µs/event; JSON.parse of the same bytes: ${cpu.parseUsPerEvent.toFixed(2)} µs/event; ratio ${cpu.ratio.toFixed(1)}x  (batch ${cpu.bytes} B JSON, ${cpu.gzBytes} B gzip)`,
);
console.error(`loopback: ${REQUESTS} requests × ${BATCH} events, concurrency ${CONCURRENCY}…`);
const load = await loopback();
console.log(
  `loopback: ${load.eventsPerSecond.toFixed(0)} events/s (${(REQUESTS / load.seconds).toFixed(0)} req/s), p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms, 5xx ${load.errors5xx}, other non-204 ${load.other}, ${load.seconds.toFixed(1)} s`,
);
