/**
 * The loopback benchmark's client, run as a process of its own (loopback.ts forks it), as an app's
 * traffic would be: the server's process does only the server's work. Sends REQUESTS gzip batches over
 * CONCURRENCY keep-alive connections and sends back events/s, latency percentiles and status counts.
 */
import { Agent, request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { batch, BATCH } from './batch';

export interface LoadOptions {
  url: string;
  key: string;
  requests: number;
  concurrency: number;
  /** Events per request; BATCH unless set. */
  batchSize?: number;
}

export interface LoadResult {
  seconds: number;
  eventsPerSecond: number;
  p50: number;
  p99: number;
  errors5xx: number;
  other: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function run({ url, key, requests, concurrency, batchSize = BATCH }: LoadOptions): Promise<LoadResult> {
  const bodies = Array.from({ length: requests }, (_, i) => gzipSync(batch(i, batchSize)));
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const { port, hostname } = new URL(url);
  const send = (body: Buffer) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          path: '/v1/events',
          method: 'POST',
          agent,
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': body.length },
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
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const i = next++;
        const t = performance.now();
        const status = await send(bodies[i]!);
        latencies.push(performance.now() - t);
        if (status >= 500) errors5xx++;
        else if (status !== 204) other++;
        if (performance.now() - lastReport > 2000) {
          lastReport = performance.now();
          process.stderr.write(`  … ${latencies.length}/${requests} requests\n`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { seconds, eventsPerSecond: (requests * batchSize) / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors5xx, other };
}

process.once('message', (options: LoadOptions) => {
  run(options).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => {
      process.stderr.write(`load client failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
});
