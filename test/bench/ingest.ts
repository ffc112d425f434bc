/**
 * npm run bench:ingest — a benchmark, not a test: prints figures, asserts nothing.
 *
 * 1. Loopback load: the local server (on-disk dynalite in its worker thread, local Firehose endpoint)
 *    driven by a client process with 20-event gzip batches (ingest/loopback.ts); events/s, p50/p99
 *    latency, 5xx count.
 * 2. Handler CPU per event with storage stubbed out, as a ratio to JSON.parse of the same bytes,
 *    measured in one process in the same run: in steady state (the JIT done, as for most requests of
 *    a warm function) and over a new container's first few thousand requests (JIT still at work).
 * 3. The ingestion function's bundle (esbuild with the stack's options, as `npm run build`): its
 *    size, and its cold load (a fresh `node` requiring it, which runs the module's init as Lambda
 *    does, with the NODE_OPTIONS the stack sets: --enable-source-maps) against `node -e 0`,
 *    alternating, median of BENCH_COLD_RUNS (default 9) each; the same load without NODE_OPTIONS
 *    beside it, and the CPU time the process used (less moved by other processes than wall time).
 *    Nothing resolves outside the bundle (it is built outside the repository, no NODE_PATH).
 *
 * 4. Its baseline, in the same run: the DynamoDB work of the same requests alone (storageAlone).
 *
 * BENCH_REQUESTS (default 500) and BENCH_CONCURRENCY (default 10, the connections issue 12's goal names) scale parts 1 and 4.
 *
 * BENCH_MODE=backfill runs only a backfill instead: BENCH_REQUESTS (default 16) batches of 1,000 events
 * (the documented maximum), each naming 1,000 users, gzip, over BENCH_CONCURRENCY (default 4)
 * connections to the local server; events/s, latency and 5xx, against its baseline in the same run: the
 * same batches over one connection to a new server, after a warm-up run (exits 1 if any request got a 5xx).
 * The machine's load average is printed with the figures: other processes stretch every one of them,
 * so compare ratios measured in the same run.
 */
import '../../bin/node-version';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { esbuildOptions } from '../../bin/build';
import { LAMBDA_ENV } from '../../lambdas/lambda-env';
import { FUNCTION_NODE_OPTIONS } from '../../lib/function';
import { stubbedIngestHandler } from './stubbed-ingest';
import { batch, BATCH, MAX_BATCH } from './ingest/batch';
import { loopback } from './ingest/loopback';
import type { HttpEvent } from '../../lambdas/http/event';
import { ensureTables, localTableName, startDynalite, LOCAL_AWS } from '../../lambdas/local/dynalite';
import { documentClient } from '../../lambdas/store/dynamo-client';
import { DynamoEventLedger } from '../../lambdas/store/event-ledger';
import { DynamoIdentityStore } from '../../lambdas/store/identity-store';
import { TABLES } from '../../lambdas/store/schema';

process.env.TALLY_LOG_LEVEL ??= 'silent';
const BACKFILL = process.env.BENCH_MODE === 'backfill';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? (BACKFILL ? 16 : 500));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? (BACKFILL ? 4 : 10));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * The baseline of the loopback figure, in the same run: the DynamoDB work of the same requests on the
 * same on-disk dynalite, through the same DynamoDB client (the AWS SDK's, as the stores get it) and stores, with no HTTP server, handler or raw
 * stream: per request one identity read and 20 conditional claims in parallel, then the commit.
 */
async function storageAlone() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-bench-ddb-'));
  const dynamo = await startDynalite(join(dataDir, 'dynamodb'));
  try {
    await ensureTables(dynamo.endpoint);
    const ddb = documentClient({ ...LOCAL_AWS, endpoint: dynamo.endpoint });
    const ledger = new DynamoEventLedger(ddb, localTableName(TABLES.events));
    const identities = new DynamoIdentityStore(ddb, localTableName(TABLES.identities));
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS) {
          const i = next++;
          const owner = `req-${i}`;
          const now = Date.now();
          await identities.observe('bench', [`user-${i % 997}`], now);
          await Promise.all(Array.from({ length: BATCH }, (_, e) => ledger.claim('bench', `key-${i}-${e}`, owner, now)));
          await ledger.markStored(owner, now);
        }
      }),
    );
    return { eventsPerSecond: (REQUESTS * BATCH) / ((performance.now() - started) / 1000) };
  } finally {
    await dynamo.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function handlerCpu() {
  const handler = stubbedIngestHandler();
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

  const perRequestUs = async (f: () => unknown, n: number) => {
    const cpu = process.cpuUsage();
    for (let i = 0; i < n; i++) await f();
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / n;
  };
  const parse = () => JSON.parse(text);
  const handle = () => handler(event, context);
  // A new container's first requests: 300 to warm up, then 3,000 of each (what this benchmark printed before).
  for (let i = 0; i < 300; i++) {
    await handle();
    parse();
  }
  const earlyParseUs = await perRequestUs(parse, 3000);
  const earlyHandlerUs = await perRequestUs(handle, 3000);
  // Steady state, as a warm function serves most requests: after 10,000 more of each (the JIT done),
  // alternating rounds of 1,000, the median round of each (other processes share the machine).
  for (let i = 0; i < 10_000; i++) {
    await handle();
    parse();
  }
  const parseRounds: number[] = [];
  const handlerRounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    parseRounds.push(await perRequestUs(parse, 1000));
    handlerRounds.push(await perRequestUs(handle, 1000));
  }
  const parseUs = median(parseRounds);
  const handlerUs = median(handlerRounds);
  return {
    handlerUsPerEvent: handlerUs / BATCH,
    parseUsPerEvent: parseUs / BATCH,
    ratio: handlerUs / parseUs,
    earlyRatio: earlyHandlerUs / earlyParseUs,
    bytes: json.length,
    gzBytes: gz.length,
  };
}

async function coldLoad() {
  const runs = Number(process.env.BENCH_COLD_RUNS ?? 9);
  // Outside the repository: its package.json says "type": "module", and Lambda loads the bundle as CommonJS.
  const outdir = mkdtempSync(join(tmpdir(), 'tally-bench-bundle-'));
  try {
    await build(esbuildOptions('ingest-v1', outdir));
    const bundle = join(outdir, 'ingest-v1', 'index.js');
    // Only the variables the function requires: nothing of this repository's node_modules is reachable
    // (the bundle is outside it, no NODE_PATH), as on Lambda where the bundle must carry the SDK.
    const env: Record<string, string | undefined> = { ...process.env, NODE_PATH: undefined, NODE_OPTIONS: undefined };
    for (const [name, v] of Object.entries(LAMBDA_ENV)) if (v.required) env[name] = '1';
    env.AWS_REGION = 'us-east-1';
    const deployed = { ...env, NODE_OPTIONS: FUNCTION_NODE_OPTIONS };
    // Each child prints the CPU time it used (user + system) once its script ran: on a machine other
    // processes keep busy, CPU time moves far less than wall time.
    const CPU = 'const u = process.cpuUsage(); process.stdout.write(String(u.user + u.system));';
    const time = (script: string, withEnv = env) => {
      const t = performance.now();
      const r = spawnSync(process.execPath, ['-e', `${script};${CPU}`], { env: withEnv, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`node -e ${script} failed: ${r.stderr}`);
      return { wallMs: performance.now() - t, cpuMs: Number(r.stdout) / 1000 };
    };
    // A require() of an @aws-sdk package left to the runtime (not one quoted in an SDK error message): none, every package is bundled.
    const sdkRequires = [...new Set(readFileSync(bundle, 'utf8').match(/(?<![[\w.$])require\("@aws-sdk\/[^"]+"\)/g) ?? [])];
    const load = `require(${JSON.stringify(bundle)})`;
    const bare: Array<ReturnType<typeof time>> = [];
    const loaded: Array<ReturnType<typeof time>> = [];
    const loadedPlain: Array<ReturnType<typeof time>> = [];
    for (let i = 0; i < runs; i++) {
      bare.push(time('0'));
      loaded.push(time(load, deployed));
      loadedPlain.push(time(load));
    }
    const wall = (xs: typeof bare) => median(xs.map((x) => x.wallMs));
    const cpu = (xs: typeof bare) => median(xs.map((x) => x.cpuMs));
    return {
      bytes: statSync(bundle).size,
      bareMs: wall(bare),
      loadMs: wall(loaded),
      plainLoadMs: wall(loadedPlain),
      bareCpuMs: cpu(bare),
      loadCpuMs: cpu(loaded),
      sdkRequires: sdkRequires.map((r) => r.slice(9, -2)),
      runs,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(`load average before: ${load()} (1, 5, 15 min; 2 cores here)`);
if (BACKFILL) {
  console.error(`backfill: ${REQUESTS} requests × ${MAX_BATCH} events over ${CONCURRENCY} connections, then over one…`);
  // The server runs in this process: a first run warms its code (the JIT) for both measured ones.
  await loopback(4, 1, MAX_BATCH);
  const run = await loopback(REQUESTS, CONCURRENCY, MAX_BATCH);
  const one = await loopback(REQUESTS, 1, MAX_BATCH);
  const line = (r: typeof run) =>
    `${r.eventsPerSecond.toFixed(0)} events/s, p50 ${(r.p50 / 1000).toFixed(2)} s, p99 ${(r.p99 / 1000).toFixed(2)} s, 5xx ${r.errors5xx}, other non-204 ${r.other}, ${r.seconds.toFixed(1)} s`;
  console.log(`backfill: ${REQUESTS} gzip batches of ${MAX_BATCH} events (1,000 users each) over ${CONCURRENCY} connections: ${line(run)}`);
  console.log(
    `baseline: the same batches over one connection, to a new server of the same kind: ${line(one)}; ${CONCURRENCY} connections reach ${(run.eventsPerSecond / one.eventsPerSecond).toFixed(2)}x of it`,
  );
  console.log(`load average after: ${load()}`);
  process.exit(run.errors5xx > 0 ? 1 : 0);
}
const cpu = await handlerCpu();
const cold = await coldLoad();
if (process.env.BENCH_CPU_ONLY) {
  console.log(JSON.stringify({ ...cpu, cold }));
  process.exit(0);
}
console.log(
  `handler CPU (storage stubbed): ${cpu.handlerUsPerEvent.toFixed(2)} µs/event; JSON.parse of the same bytes: ${cpu.parseUsPerEvent.toFixed(2)} µs/event; ratio ${cpu.ratio.toFixed(1)}x steady state (median of 7 alternating rounds after 10,000 warm-up requests); ${cpu.earlyRatio.toFixed(1)}x over a new container's requests 300-3,300  (batch ${cpu.bytes} B JSON, ${cpu.gzBytes} B gzip)`,
);
console.log(
  `ingestion bundle: ${(cold.bytes / 1024).toFixed(1)} KB minified; cold load (NODE_OPTIONS=${FUNCTION_NODE_OPTIONS}, as deployed) ${cold.loadMs.toFixed(0)} ms vs node -e 0 ${cold.bareMs.toFixed(0)} ms: +${(cold.loadMs - cold.bareMs).toFixed(0)} ms (${(cold.loadMs / cold.bareMs).toFixed(2)}x, median of ${cold.runs}); without NODE_OPTIONS ${cold.plainLoadMs.toFixed(0)} ms (+${(cold.plainLoadMs - cold.bareMs).toFixed(0)} ms); CPU time of the process, as deployed: ${cold.loadCpuMs.toFixed(0)} ms vs ${cold.bareCpuMs.toFixed(0)} ms (+${(cold.loadCpuMs - cold.bareCpuMs).toFixed(0)} ms); ${cold.sdkRequires.length ? `requires from the runtime: ${cold.sdkRequires.join(', ')}` : 'requires no @aws-sdk package from the runtime'}`,
);
console.error(`loopback: ${REQUESTS} requests × ${BATCH} events, concurrency ${CONCURRENCY}…`);
const alone = await storageAlone();
const run = await loopback(REQUESTS, CONCURRENCY);
console.log(
  `loopback: ${run.eventsPerSecond.toFixed(0)} events/s (${(REQUESTS / run.seconds).toFixed(0)} req/s), p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, 5xx ${run.errors5xx}, other non-204 ${run.other}, ${run.seconds.toFixed(1)} s`,
);
console.log(
  `baseline: the same requests' DynamoDB work alone (same dynalite on disk, DynamoDB client and stores; no HTTP, handler or raw stream): ${alone.eventsPerSecond.toFixed(0)} events/s; the local server does ${((100 * run.eventsPerSecond) / alone.eventsPerSecond).toFixed(0)}% of it`,
);
console.log(`load average after: ${load()}`);
