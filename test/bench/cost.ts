/**
 * npm run bench:cost — what ingestion costs per event on AWS, counted from what the real handler
 * does. A benchmark, not a test: prints figures, asserts nothing (test/bench-cost/ guards the arithmetic).
 *
 * The ingestion handler is the one the local server and the Lambda run, wired by the local server
 * on dynalite and the local Firehose endpoint; the authorizer is the Lambda authorizer's handler on
 * the same key store. test/bench/cost/meter.ts counts every DynamoDB and Firehose call they make
 * with DynamoDB's and Firehose's billing rules; log lines are captured as the handlers write them.
 *
 * Environment: BENCH_EVENTS (events per batch size, default 2000), BENCH_BATCHES (default "20,1,100"),
 * BENCH_PROJECT_EVENTS_PER_SECOND (one project's steady rate, for S3 objects per Firehose buffer;
 * default 100), BENCH_DDB_WAVE_MS / BENCH_FIREHOSE_WAVE_MS (network wait per sequential wave of
 * calls; default 5 and 20), BENCH_CROSSCHECK=0 to skip dynalite's ReturnConsumedCapacity comparison.
 */
import '../../bin/node-version';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { startLocalServer, LOCAL_STREAMS } from '../../lambdas/local/server';
import { createHandlers } from '../../lambdas/handlers/registry';
import { stubbedIngestHandler } from './stubbed-ingest';
import { createAuthorizerHandler } from '../../lambdas/handlers/authorizer';
import type { HttpEvent } from '../../lambdas/http/event';
import { installMeter, Meter } from './cost/meter';
import { GB, PRICES, PRICES_READ_ON, type Price } from './cost/prices';
import { accessLogLine, ANONYMOUS_EVENTS, batches, EVENTS_PER_USER, readStackDefaults } from './cost/workload';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const BATCH_SIZES = (process.env.BENCH_BATCHES ?? '20,1,100').split(',').map(Number);
const PROJECT_RATE = Number(process.env.BENCH_PROJECT_EVENTS_PER_SECOND ?? 100);
/** NDJSON events gzip to about a tenth (docs/cost.md: 0.6 GB to ≈ 0.06 GB). */
const GZIP_RATIO = 0.1;
/** Hourly compactions re-read the day's curated partition so far: on average half a day, 24 runs a day, so 12 times an event's curated bytes. */
const COMPACTION_REREADS = 12;
const DDB_WAVE_MS = Number(process.env.BENCH_DDB_WAVE_MS ?? 5);
const FIREHOSE_WAVE_MS = Number(process.env.BENCH_FIREHOSE_WAVE_MS ?? 20);
/** Lambda gives a function one vCPU at 1,769 MB and a proportional share below (Lambda developer guide, memory and computing power). */
const FULL_VCPU_MB = 1769;
/** The README's cost table before this benchmark: 3 WRU per event and $2.16 per million at batch 20. */
const README_WRU_PER_EVENT = 3;
const README_USD_PER_MILLION = 2.16;
const GOAL_USD_PER_MILLION = 1.0;

const defaults = readStackDefaults(REPO);
// Quiet outside the metered invocations; inside them, the level the deployed functions log at.
process.env.TALLY_LOG_LEVEL = 'silent';

/** Captures what the handlers write to stdout/stderr (one JSON line per log call) while `run` runs. */
async function captureLogs<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[]; cpuMs: number }> {
  const lines: string[] = [];
  const out = process.stdout.write;
  const err = process.stderr.write;
  const grab = (chunk: string | Uint8Array, ...rest: unknown[]) => {
    for (const line of (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')).split('\n')) if (line) lines.push(line);
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    cb?.();
    return true;
  };
  process.stdout.write = grab as typeof process.stdout.write;
  process.stderr.write = grab as typeof process.stderr.write;
  process.env.TALLY_LOG_LEVEL = defaults.logLevel;
  const cpu = process.cpuUsage();
  try {
    const result = await run();
    const used = process.cpuUsage(cpu);
    return { result, lines, cpuMs: (used.user + used.system) / 1000 };
  } finally {
    process.env.TALLY_LOG_LEVEL = 'silent';
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

const lambdaContext = (requestId: string) => ({ awsRequestId: requestId, getRemainingTimeInMillis: () => 10_000, functionName: 'bench' }) as unknown as Context;

function ingestEvent(body: Buffer, authorizer: Record<string, unknown>, requestId: string): HttpEvent {
  return {
    resource: '/v1/events',
    path: '/v1/events',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'X-Tally-SDK': 'tally-js', 'X-Tally-SDK-Version': '1.0.0' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: body.toString('base64'),
    isBase64Encoded: true,
    requestContext: { requestId, authorizer, identity: { sourceIp: '203.0.113.7' }, httpMethod: 'POST', path: '/prod/v1/events' },
  } as unknown as HttpEvent;
}

function authorizerEvent(key: string): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/prod/POST/v1/events',
    resource: '/v1/events',
    path: '/v1/events',
    httpMethod: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Origin: 'https://www.example-shop.com' },
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

/** Handler CPU per request with storage stubbed (the handler's own work: gunzip, parse, validate, enrich). */
async function stubbedIngestCpuMs(body: Buffer): Promise<number> {
  const handler = stubbedIngestHandler();
  const event = ingestEvent(body, { project_id: 'p', key_id: 'k' }, 'bench');
  const context = lambdaContext('bench');
  // Warm up for 0.5 s of CPU, then measure for 2 s.
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const u = process.cpuUsage(since);
    return (u.user + u.system) / 1000;
  };
  const warm = process.cpuUsage();
  while (cpuMs(warm) < 500) await handler(event, context);
  const cpu = process.cpuUsage();
  let rounds = 0;
  while (cpuMs(cpu) < 2000) {
    await handler(event, context);
    rounds++;
  }
  return cpuMs(cpu) / rounds;
}

interface Scenario {
  batch: number;
  events: number;
  requests: number;
  meter: Meter;
  ingestLogBytes: number;
  ingestLogLines: number;
  authLogBytes: number;
  authLogLines: number;
  accessLogBytes: number;
  authCpuMs: number;
  authKeyLookups: number;
  ingestCpuMs: number;
  wavesPerRequest: { dynamodb: number; firehose: number };
  sentBytesPerEvent: number;
}

async function runScenario(
  server: Awaited<ReturnType<typeof startLocalServer>>,
  meter: Meter,
  admin: Record<string, string>,
  batch: number,
): Promise<Scenario> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(server.url + path, { method: 'POST', headers: admin, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  const project = await post('/admin/v1/projects', { name: `cost bench, batch ${batch}` });
  const key = await post(`/admin/v1/projects/${project.id}/keys`, { plan: 'enterprise', rate_limit_per_minute: 600_000 });

  const t0 = Date.now() - 3_600_000;
  const bodies = batches(EVENTS, batch, t0);
  const sentBytes = bodies.reduce((s, b) => s + Buffer.byteLength(b) - Buffer.byteLength(JSON.stringify({ context: JSON.parse(b).context, events: [] })), 0);
  const handlers = createHandlers(server.deps);
  const ingest = handlers['ingest-v1'];
  const authorizer = createAuthorizerHandler({ keys: server.deps.keys, clock: Date.now, keyCacheTtlMs: defaults.keyCacheTtlSeconds * 1000 });

  const s: Scenario = {
    batch,
    events: EVENTS,
    requests: bodies.length,
    meter,
    ingestLogBytes: 0,
    ingestLogLines: 0,
    authLogBytes: 0,
    authLogLines: 0,
    accessLogBytes: 0,
    authCpuMs: 0,
    authKeyLookups: 0,
    ingestCpuMs: 0,
    wavesPerRequest: { dynamodb: 0, firehose: 0 },
    sentBytesPerEvent: sentBytes / EVENTS,
  };
  const logBytes = (lines: string[]) => lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
  let authCpuHits = 0;
  let authHits = 0;

  meter.reset();
  meter.enabled = true;
  for (const text of bodies) {
    const requestId = randomUUID();
    const readsBefore = meter.total(meter.reads);
    const auth = await captureLogs(() => authorizer(authorizerEvent(key.key!)));
    if (auth.result.policyDocument.Statement[0] && (auth.result.policyDocument.Statement[0] as { Effect: string }).Effect !== 'Allow')
      throw new Error('authorizer denied the bench key');
    s.authLogBytes += logBytes(auth.lines);
    s.authLogLines += auth.lines.length;
    if (meter.total(meter.reads) > readsBefore) s.authKeyLookups++;
    else {
      authCpuHits += auth.cpuMs;
      authHits++;
    }
    const waves = { ...meter.waves };
    const res = await captureLogs(() => ingest(ingestEvent(gzipSync(text), auth.result.context!, requestId), lambdaContext(requestId)));
    if (res.result.statusCode !== 204) throw new Error(`ingestion answered ${res.result.statusCode}: ${res.result.body}`);
    s.ingestLogBytes += logBytes(res.lines);
    s.ingestLogLines += res.lines.length;
    s.wavesPerRequest.dynamodb += meter.waves.dynamodb - waves.dynamodb;
    s.wavesPerRequest.firehose += meter.waves.firehose - waves.firehose;
    if (defaults.apiAccessLogs)
      s.accessLogBytes += Buffer.byteLength(accessLogLine(defaults.accessLogFormat, { projectId: project.id!, keyId: auth.result.context!.key_id as string }));
  }
  meter.enabled = false;
  s.wavesPerRequest.dynamodb /= s.requests;
  s.wavesPerRequest.firehose /= s.requests;
  s.authCpuMs = authHits ? authCpuHits / authHits : 0;
  s.ingestCpuMs = await stubbedIngestCpuMs(gzipSync(bodies[0]!));
  return s;
}

interface Line {
  service: string;
  item: string;
  perEvent: number;
  unit: string;
  usdPerMillion: number;
  dynamo?: boolean;
}

function bill(s: Scenario): { lines: Line[]; total: number; durations: { ingestMs: number; authMs: number } } {
  const m = s.meter;
  const per = (n: number) => n / s.events;
  const cost = (units: number, price: Price, scale = 1) => (units * 1e6 * price.usd) / scale;
  const lines: Line[] = [];
  const requests = per(s.requests);
  lines.push({
    service: 'API Gateway',
    item: 'REST requests',
    perEvent: requests,
    unit: 'requests',
    usdPerMillion: cost(requests, PRICES.apiGatewayRest, 1e6),
  });
  lines.push({
    service: 'Lambda',
    item: 'invocations (ingest + authorizer)',
    perEvent: 2 * requests,
    unit: 'requests',
    usdPerMillion: cost(2 * requests, PRICES.lambdaRequests, 1e6),
  });
  const cpuScale = FULL_VCPU_MB / defaults.memoryMb;
  const ingestMs = Math.ceil(s.ingestCpuMs * cpuScale + s.wavesPerRequest.dynamodb * DDB_WAVE_MS + s.wavesPerRequest.firehose * FIREHOSE_WAVE_MS);
  const authMs = Math.max(1, Math.ceil(s.authCpuMs * cpuScale));
  const gbSeconds = (requests * (ingestMs + authMs) * defaults.memoryMb) / 1024 / 1000;
  lines.push({
    service: 'Lambda',
    item: `duration (ingest ${ingestMs} ms + authorizer ${authMs} ms at ${defaults.memoryMb} MB, arm64)`,
    perEvent: gbSeconds,
    unit: 'GB-s',
    usdPerMillion: cost(gbSeconds, PRICES.lambdaArmGbSecond),
  });
  for (const [key, units] of [...m.writes].sort()) {
    lines.push({
      service: 'DynamoDB',
      item: `writes ${key}`,
      perEvent: per(units),
      unit: 'WRU',
      usdPerMillion: cost(per(units), PRICES.dynamoWru, 1e6),
      dynamo: true,
    });
  }
  for (const [key, units] of [...m.reads].sort()) {
    lines.push({
      service: 'DynamoDB',
      item: `reads ${key}`,
      perEvent: per(units),
      unit: 'RRU',
      usdPerMillion: cost(per(units), PRICES.dynamoRru, 1e6),
      dynamo: true,
    });
  }
  let objectsPerEvent = 0;
  for (const [stream, f] of m.firehose) {
    lines.push({
      service: 'Firehose',
      item: `${stream}: ${per(f.records).toFixed(3)} records/event, ingestion billed at 5 KB per record`,
      perEvent: per(f.billedBytes),
      unit: 'bytes',
      usdPerMillion: cost(per(f.billedBytes), PRICES.firehoseIngestGb, GB),
    });
    // No dynamic partitioning (docs/decisions/columnar-events.md): one object per buffer flush of the
    // stream, every project in it; counted at one project's rate, as before (an upper bound).
    const bytesPerEvent = f.bytes / s.events;
    const eventsPerObject = Math.min(PROJECT_RATE * defaults.bufferingIntervalSeconds, (defaults.bufferingSizeMiB * 1024 * 1024) / bytesPerEvent);
    objectsPerEvent += 1 / eventsPerObject;
    // The compaction job (lambdas/adapters/athena-compaction.ts): Athena reads each landing hour once
    // (GZIP: GZIP_RATIO of the line) and, each hourly run, the day's curated partition so far (half a
    // day on average: COMPACTION_REREADS times an event's curated bytes, taken as its GZIP bytes).
    const scanned = per(f.bytes) * GZIP_RATIO * (1 + COMPACTION_REREADS);
    lines.push({
      service: 'Athena',
      item: `${stream}: compaction, bytes scanned (landing once, the day's curated partition ${COMPACTION_REREADS}x)`,
      perEvent: scanned,
      unit: 'bytes',
      usdPerMillion: cost(scanned, PRICES.athenaTb, 1e12),
    });
  }
  lines.push({
    service: 'S3',
    item: 'PUTs by Firehose delivery (one per object)',
    perEvent: objectsPerEvent,
    unit: 'PUTs',
    usdPerMillion: cost(objectsPerEvent, PRICES.s3Put, 1000),
  });
  const logs = [
    ['ingestion function', s.ingestLogBytes],
    ['authorizer function', s.authLogBytes],
    ['API Gateway access log', s.accessLogBytes],
  ] as const;
  for (const [what, bytes] of logs) {
    lines.push({
      service: 'CloudWatch Logs',
      item: `ingested: ${what}`,
      perEvent: per(bytes),
      unit: 'bytes',
      usdPerMillion: cost(per(bytes), PRICES.logsIngestGb, GB),
    });
  }
  return { lines, total: lines.reduce((t, l) => t + l.usdPerMillion, 0), durations: { ingestMs, authMs } };
}

const fmt = (n: number) => (n === 0 ? '0' : n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(3) : n.toPrecision(3));

function report(s: Scenario, primary: boolean): { total: number; dynamo: number; wru: number; rru: number } {
  const { lines, total, durations } = bill(s);
  const m = s.meter;
  const dynamo = lines.filter((l) => l.dynamo).reduce((t, l) => t + l.usdPerMillion, 0);
  const wru = m.total(m.writes) / s.events;
  const rru = m.total(m.reads) / s.events;
  const calls = [...m.calls.values()].reduce((a, b) => a + b, 0) / s.requests;
  console.log(`\n## Batch of ${s.batch} (${s.requests} requests, ${s.events} events, ${s.sentBytesPerEvent.toFixed(0)} bytes per event as sent)\n`);
  console.log('| Service | What | Units per event | Unit | $ per million events | Share |');
  console.log('| --- | --- | ---: | --- | ---: | ---: |');
  for (const l of lines)
    console.log(
      `| ${l.service} | ${l.item} | ${fmt(l.perEvent)} | ${l.unit} | ${l.usdPerMillion.toFixed(4)} | ${((100 * l.usdPerMillion) / total).toFixed(1)}% |`,
    );
  console.log(`| **Total** | | | | **${total.toFixed(3)}** | 100% |`);
  console.log('');
  console.log(
    `- DynamoDB: ${wru.toFixed(3)} WRU and ${rru.toFixed(3)} RRU per event; $${dynamo.toFixed(3)} per million = ${((100 * dynamo) / total).toFixed(1)}% of the bill (${(wru / README_WRU_PER_EVENT).toFixed(2)}x the README's ${README_WRU_PER_EVENT} WRU per event).`,
  );
  const firehose = [...m.firehose.entries()]
    .map(([k, f]) => `${k}: ${f.records} records, ${(f.bytes / Math.max(1, f.records)).toFixed(0)} bytes each`)
    .join('; ');
  console.log(
    `- Firehose: ${firehose || 'no records'}; stored line ${((m.firehose.get(LOCAL_STREAMS.events)?.bytes ?? 0) / s.events).toFixed(0)} bytes per event.`,
  );
  console.log(
    `- Calls per request: ${calls.toFixed(2)} DynamoDB (${[...m.calls].map(([k, v]) => `${k} ${(v / s.requests).toFixed(2)}`).join(', ')}); conditional failures ${[...m.conditionalFailures.values()].reduce((a, b) => a + b, 0)}.`,
  );
  console.log(
    `- Lambda duration: ingest ${durations.ingestMs} ms = handler CPU ${s.ingestCpuMs.toFixed(3)} ms (storage stubbed) x ${(FULL_VCPU_MB / defaults.memoryMb).toFixed(2)} (a ${defaults.memoryMb} MB function's share of a vCPU) + ${s.wavesPerRequest.dynamodb.toFixed(2)} DynamoDB waves x ${DDB_WAVE_MS} ms + ${s.wavesPerRequest.firehose.toFixed(2)} Firehose waves x ${FIREHOSE_WAVE_MS} ms; authorizer ${durations.authMs} ms (CPU ${s.authCpuMs.toFixed(3)} ms on a cache hit; ${s.authKeyLookups} key lookup(s) in ${s.requests} requests = ${((100 * (s.requests - s.authKeyLookups)) / s.requests).toFixed(1)}% hit rate).`,
  );
  console.log(
    `- Logs: ingestion ${(s.ingestLogBytes / s.requests).toFixed(0)} bytes in ${(s.ingestLogLines / s.requests).toFixed(2)} lines per request, authorizer ${(s.authLogBytes / s.requests).toFixed(0)} bytes in ${(s.authLogLines / s.requests).toFixed(2)} lines, access log ${(s.accessLogBytes / s.requests).toFixed(0)} bytes.`,
  );
  if (m.unmetered.size) {
    console.log(
      `- NOT METERED, so the figures above are incomplete (calls the meter does not know; teach test/bench/cost/meter.ts): ${[...m.unmetered].map(([k, v]) => `${k} x${v}`).join(', ')}`,
    );
    process.exitCode = 1;
  }
  if (primary) {
    console.log(
      `- Against the README (batch 20): $${total.toFixed(3)} vs $${README_USD_PER_MILLION} claimed = ${(total / README_USD_PER_MILLION).toFixed(2)}x; against issue 12's goal of $${GOAL_USD_PER_MILLION.toFixed(2)}: ${(total / GOAL_USD_PER_MILLION).toFixed(2)}x.`,
    );
  }
  return { total, dynamo, wru, rru };
}

function crossCheckReport(meter: Meter) {
  const byOp = new Map<string, { n: number; same: number; ours: number; theirs: number }>();
  for (const c of meter.crossChecks) {
    const e = byOp.get(c.op) ?? { n: 0, same: 0, ours: 0, theirs: 0 };
    e.n++;
    if (Math.abs(c.ours - c.dynalite) < 1e-9) e.same++;
    e.ours += c.ours;
    e.theirs += c.dynalite;
    byOp.set(c.op, e);
  }
  const summary = [...byOp].map(([op, e]) => `${op} ${e.same}/${e.n} equal (ours ${e.ours}, dynalite ${e.theirs})`).join('; ');
  console.log(`- Cross-check with dynalite's ReturnConsumedCapacity (table units only; dynalite reports no index units): ${summary || 'none'}.`);
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-cost-'));
  const server = await startLocalServer({ port: 0, dataDir, inMemoryDynamo: true, adminToken: 'bench-admin-token-0123456789' });
  const admin = { Authorization: 'Bearer bench-admin-token-0123456789', 'Content-Type': 'application/json' };
  const meter = new Meter();
  meter.crossCheck = process.env.BENCH_CROSSCHECK !== '0';
  const uninstall = installMeter(meter);
  try {
    console.log(`# bench:cost — ingestion cost per event, us-east-1 on-demand list prices (read ${PRICES_READ_ON})`);
    console.log(
      `\nCommand: npm run bench:cost (BENCH_EVENTS=${EVENTS}, BENCH_BATCHES=${BATCH_SIZES.join(',')}, BENCH_PROJECT_EVENTS_PER_SECOND=${PROJECT_RATE}, BENCH_DDB_WAVE_MS=${DDB_WAVE_MS}, BENCH_FIREHOSE_WAVE_MS=${FIREHOSE_WAVE_MS}); run ${new Date().toISOString()}`,
    );
    const totals: Array<{ batch: number; total: number; dynamo: number; wru: number; rru: number }> = [];
    for (const [i, batch] of BATCH_SIZES.entries()) {
      process.stderr.write(`batch ${batch}: ${Math.ceil(EVENTS / batch)} requests…\n`);
      const started = performance.now();
      const s = await runScenario(server, meter, admin, batch);
      process.stderr.write(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      const r = report(s, i === 0 && batch === 20);
      if (meter.crossCheck) crossCheckReport(meter);
      totals.push({ batch, ...r });
    }
    console.log('\n## Summary\n');
    console.log('| Batch | WRU per event | RRU per event | $ per million events | DynamoDB $ | DynamoDB share | vs batch 20 |');
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const base = totals.find((t) => t.batch === 20)?.total;
    for (const t of totals) {
      console.log(
        `| ${t.batch} | ${t.wru.toFixed(3)} | ${t.rru.toFixed(3)} | ${t.total.toFixed(3)} | ${t.dynamo.toFixed(3)} | ${((100 * t.dynamo) / t.total).toFixed(1)}% | ${base ? `${(t.total / base).toFixed(2)}x` : '-'} |`,
      );
    }
    console.log('\n## Prices\n');
    for (const [name, p] of Object.entries(PRICES) as Array<[string, Price]>) {
      console.log(`- ${name}: $${p.usd} per ${p.per}. Source: ${p.source}; read ${PRICES_READ_ON}.${p.assumed ? ` ASSUMED: ${p.assumed}.` : ''}`);
    }
    console.log('\n## Assumptions\n');
    for (const a of [
      `Workload: about 500 bytes per event as sent, one device per batch, ${EVENTS_PER_USER} events per user: ${ANONYMOUS_EVENTS} under an anonymous ID, then one $identify (link + email and name), then the user ID; so 2 new identity items, 1 link and 1 profile update per ${EVENTS_PER_USER} events at every batch size. No experiment exposures, no retries or duplicates (no conditional failures).`,
      `Stack defaults read from lib/: ${defaults.memoryMb} MB arm64 functions, log level ${defaults.logLevel}, authorizer result cache TTL ${defaults.authorizerResultsCacheTtlSeconds} s (so the authorizer runs on every request), its key-record cache ${defaults.keyCacheTtlSeconds} s, Firehose buffer ${defaults.bufferingIntervalSeconds} s / ${defaults.bufferingSizeMiB} MiB per partition, API access logs ${defaults.apiAccessLogs ? 'on' : 'off'}.`,
      `Lambda duration is not measured on Lambda: the handler's CPU time here (storage stubbed, so the AWS client's serialisation is left out) scaled to a ${defaults.memoryMb} MB function's vCPU share (1,769 MB = 1 vCPU, taken as one core of this machine), plus ${DDB_WAVE_MS} ms per sequential wave of DynamoDB calls and ${FIREHOSE_WAVE_MS} ms per Firehose call, counted from the calls the handler made. Init (cold start) duration is left out. Lambda's START/END/REPORT lines are not logged (system log level WARN in lib/function.ts).`,
      `Log bytes are the handlers' own JSON lines as written (Lambda JSON log format, stored as written); CloudWatch bills bytes ingested, taken here without any per-event overhead.`,
      `S3 objects: one per stream per buffer flush (landing by arrival hour, no dynamic partitioning), counted at one project's ${PROJECT_RATE} events/s (more traffic shares the objects). Firehose delivery PUTs are single-part at these sizes. Compaction: Athena scans each landing hour once (GZIP ${GZIP_RATIO} of the line) and the day's curated partition ${COMPACTION_REREADS} times (curated bytes taken as the GZIP bytes, an upper bound for Parquet ZSTD); its Glue calls and Parquet PUTs (one per partition per hourly run) are negligible per event. S3 storage over time is left out (not per event).`,
      "Athena's results job is not per event (it runs per experiment on a schedule) and is left out (the compaction job's scans are in the table); so are data transfer (responses are 204 with no body), KMS (AWS-owned key, no charge) and S3 server access logs (delivery is free; storage only).",
      'DynamoDB item sizes follow the documented rules (numbers: 1 byte per two significant digits + 1), from the items actually written and read; GSI writes from the items each index projects (every index projects ALL). Prices are on-demand, Standard table class, no free tier.',
    ])
      console.log(`- ${a}`);
  } finally {
    uninstall();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
