/**
 * npm run bench:insights — a benchmark, not a test: prints figures (issue 25, "Measured").
 *
 * BENCH_TIME_ZONE (default UTC) is the project time zone the insight queries count days in.
 *
 * 1. Generates BENCH_EVENTS (default 1,000,000) raw events of one project over BENCH_DAYS (default 30)
 *    days from BENCH_USERS (default 50,000) users into a temp data directory in the local raw layout
 *    (events/project_id=<id>/dt=<day>/received=<arrival hour>/*.ndjson, one file per hour of
 *    arrivals as Firehose delivers them; identities/ for the logins: a third of the users start
 *    anonymous and log in), with platform, country, app version and a `plan` property to break down by.
 * 2. Times each insight query of INSIGHT_QUERIES through the local engine (DuckDbInsightEngine, the
 *    path `npm start` runs: file listing, views, the one SQL text, the result file) beside a plain
 *    `count(*)` over the same files through the same views in the same run, as time per million rows
 *    and as a ratio (BENCH_ROUNDS rounds, default 3, alternating; medians). The funnels and retention
 *    queries are added to INSIGHT_QUERIES (one entry each) by their kinds.
 * 3. Prints Athena's cost of each query for a project at 10 million events a day over a year, from
 *    the bytes-scanned model of the raw layout: the raw objects are GZIP NDJSON, a row format, so
 *    Athena reads every byte of every object under the partitions a query names, whatever columns it
 *    uses (it bills bytes scanned, $5 per TB: https://aws.amazon.com/athena/pricing/); the measured
 *    GZIP bytes per event of the generated files times the events of the days read. For reference it
 *    also prints what the same query would scan if the raw layout were columnar (Parquet): the columns
 *    it reads × their compressed bytes per event (each column's values GZIP-compressed on its own).
 */
import '../../bin/node-version';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import {
  EVENT_COLUMNS,
  IDENTITY_COLUMNS,
  LOCAL_TABLES,
  TRINO_COMPAT_MACROS,
  partitionFiles,
  readRows,
  viewSql,
} from '../../lambdas/adapters/duckdb-results-query';
import { DuckDbInsightEngine } from '../../lambdas/adapters/duckdb-insights';
import { ARRIVAL_PARTITION, arrivalHour } from '../../lambdas/contract/arrival-partition';
import { INSIGHT_KINDS, type InsightKindName } from '../../lambdas/domain/insights/kinds';
import { insightQueryId } from '../../lambdas/domain/insights/query-id';
import { prng } from '../../bin/prng';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const USERS = Number(process.env.BENCH_USERS ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROJECT = 'bench-project';
const FIRST_DAY_MS = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const LAST_DAY = day(FIRST_DAY_MS + (DAYS - 1) * DAY_MS);
const FIRST_DAY = day(FIRST_DAY_MS);

/** The year at scale the cost is stated for. */
const EVENTS_PER_DAY_AT_SCALE = 10_000_000;
const ATHENA_USD_PER_TB = 5;

/**
 * The insight queries timed, by kind: a definition over the generated month and the columns the
 * query reads (for the columnar reference). Funnels and retention add one entry each here.
 */
interface BenchQuery {
  name: string;
  kind: InsightKindName;
  definition: unknown;
  /** Days of events a query of this shape reads over a year: the range, plus the previous period when it compares. */
  yearDaysRead: number;
  columns: string[];
}
const INSIGHT_QUERIES: BenchQuery[] = [
  {
    name: 'trends: 2 events (events, users) per day, by platform, with the previous period',
    kind: 'trends',
    definition: INSIGHT_KINDS.trends.definition.parse({
      series: [{ event: 'page_view' }, { event: 'purchase', measure: 'users' }],
      date_from: day(FIRST_DAY_MS + (DAYS / 2) * DAY_MS),
      date_to: LAST_DAY,
      breakdown: 'platform',
    }),
    yearDaysRead: 366 * 2,
    columns: ['dedupe_key', 'event_id', 'user_id', 'received_at', 'name', 'sent_user_id', 'timestamp', 'platform', 'properties'],
  },
  {
    name: 'trends: sum of a property per week, by a property (top 10 + other)',
    kind: 'trends',
    definition: INSIGHT_KINDS.trends.definition.parse({
      series: [{ event: 'purchase', measure: 'sum', property: 'amount' }],
      interval: 'week',
      date_from: FIRST_DAY,
      date_to: LAST_DAY,
      breakdown: 'property',
      breakdown_property: 'plan',
      compare: false,
    }),
    yearDaysRead: 366,
    columns: ['dedupe_key', 'event_id', 'user_id', 'received_at', 'name', 'sent_user_id', 'timestamp', 'properties'],
  },
  {
    name: 'funnels: 4 steps over the month, 14-day window, by platform',
    kind: 'funnels',
    definition: INSIGHT_KINDS.funnels.definition.parse({
      steps: [{ event: 'page_view' }, { event: 'signup' }, { event: 'add_to_cart' }, { event: 'purchase' }],
      date_from: FIRST_DAY,
      date_to: LAST_DAY,
      breakdown: 'platform',
    }),
    yearDaysRead: 366,
    columns: ['dedupe_key', 'event_id', 'user_id', 'received_at', 'name', 'sent_user_id', 'timestamp', 'platform', 'properties'],
  },
  {
    // The cost line: a year of the same question by week (a daily table spans at most 92 days).
    name: 'retention: 30 daily cohorts (signup, then page_view)',
    kind: 'retention',
    definition: INSIGHT_KINDS.retention.definition.parse({
      start_event: 'signup',
      return_event: 'page_view',
      date_from: FIRST_DAY,
      date_to: LAST_DAY,
    }),
    yearDaysRead: 366,
    columns: ['dedupe_key', 'event_id', 'user_id', 'received_at', 'name', 'sent_user_id', 'timestamp'],
  },
];

const PLATFORMS = ['ios', 'android', 'web'];
const COUNTRIES = ['GB', 'DE', 'FR', 'US', 'ES', 'IT', 'NL', 'SE', 'PL', 'BR', 'IN', 'JP', null];
const PLANS = Array.from({ length: 20 }, (_, i) => `plan-${i}`);

interface Generated {
  events: number;
  bytes: number;
  gzipBytes: number;
  /** Compressed bytes per event of each column on its own (GZIP of the column's values, one per line). */
  columnGzipBytes: Record<string, number>;
}

function generate(dataDir: string): Generated {
  const random = prng(25);
  const files = new Map<string, string[]>();
  const columns = new Map<string, string[]>();
  const anonymous = Array.from({ length: USERS }, () => random() < 1 / 3);
  const platform = Array.from({ length: USERS }, () => PLATFORMS[Math.floor(random() * PLATFORMS.length)]!);
  const country = Array.from({ length: USERS }, () => COUNTRIES[Math.floor(random() * COUNTRIES.length)]!);
  const links: string[] = [];
  for (let u = 0; u < USERS; u++) {
    if (anonymous[u]) {
      links.push(
        JSON.stringify({
          id: `user-${u}`,
          canonical_id: `anon-${u}`,
          version: 1,
          timestamp: new Date(FIRST_DAY_MS + random() * DAYS * DAY_MS).toISOString(),
          reason: 'link',
        }),
      );
    }
  }
  let bytes = 0;
  for (let seq = 0; seq < TOTAL; seq++) {
    const u = Math.floor(random() * USERS);
    const ms = FIRST_DAY_MS + Math.floor(random() * DAYS * DAY_MS);
    const received = ms + Math.floor(random() * 120_000) + (random() < 0.02 ? DAY_MS : 0);
    const r = random();
    const name = r < 0.03 ? 'purchase' : r < 0.15 ? 'add_to_cart' : r < 0.2 ? 'signup' : 'page_view';
    const properties =
      name === 'purchase'
        ? { amount: Math.round(random() * 10000) / 100, currency: 'EUR', plan: PLANS[Math.floor(random() ** 2 * PLANS.length)] }
        : name === 'page_view'
          ? { path: `/p/${Math.floor(random() * 50)}` }
          : { plan: PLANS[Math.floor(random() ** 2 * PLANS.length)] };
    const id = anonymous[u] && random() < 0.4 ? `anon-${u}` : `user-${u}`;
    const event = {
      dedupe_key: `bench-${seq.toString(36)}`,
      event_id: null,
      name,
      user_id: id,
      sent_user_id: id,
      session_id: `s-${u}`,
      timestamp: new Date(ms).toISOString(),
      received_at: new Date(received).toISOString(),
      properties,
      platform: platform[u],
      app_version: `4.${Math.floor(random() * 5)}.0`,
      app_build_number: null,
      os_version: null,
      environment: 'production',
      device_manufacturer: null,
      locale: 'en-GB',
      timezone: 'Europe/London',
      country: country[u],
      region: null,
      city: null,
      sdk: 'tally-js',
      sdk_version: '1.0.0',
      source: 'v1',
    };
    const line = JSON.stringify(event);
    bytes += line.length + 1;
    const key = `${day(ms)}|${arrivalHour(event.received_at)}`;
    let lines = files.get(key);
    if (!lines) files.set(key, (lines = []));
    lines.push(line);
    if (seq < 100_000) {
      for (const [column, value] of Object.entries(event)) {
        let values = columns.get(column);
        if (!values) columns.set(column, (values = []));
        values.push(typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));
      }
    }
  }
  let gzipBytes = 0;
  for (const [key, lines] of files) {
    const [dt, hour] = key.split('|') as [string, string];
    const folder = join(dataDir, 'events', `project_id=${PROJECT}`, `dt=${dt}`, `${ARRIVAL_PARTITION}=${hour}`);
    mkdirSync(folder, { recursive: true });
    const text = lines.join('\n') + '\n';
    // What Firehose stores on AWS: each file GZIP-compressed (what Athena scans and bills).
    gzipBytes += gzipSync(text).length;
    writeFileSync(join(folder, 'bench.ndjson'), text);
  }
  const linkDir = join(dataDir, 'identities', `project_id=${PROJECT}`, `dt=${FIRST_DAY}`);
  mkdirSync(linkDir, { recursive: true });
  writeFileSync(join(linkDir, 'links.ndjson'), links.join('\n') + '\n');
  const sampled = Math.min(TOTAL, 100_000);
  const columnGzipBytes = Object.fromEntries([...columns].map(([column, values]) => [column, gzipSync(values.join('\n')).length / sampled]));
  return { events: TOTAL, bytes, gzipBytes, columnGzipBytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function countAll(instance: DuckDBInstance, dataDir: string, fromDt: string, toDt: string): Promise<number> {
  const [eventFiles, identityFiles] = await Promise.all([
    partitionFiles(join(dataDir, 'events'), PROJECT, fromDt, toDt),
    partitionFiles(join(dataDir, 'identities'), PROJECT),
  ]);
  const connection = await instance.connect();
  try {
    for (const macro of TRINO_COMPAT_MACROS) await connection.run(macro);
    await connection.run(viewSql(LOCAL_TABLES.events, eventFiles, EVENT_COLUMNS));
    await connection.run(viewSql(LOCAL_TABLES.identities, identityFiles, IDENTITY_COLUMNS));
    const rows = await readRows(
      connection,
      `SELECT count(*) AS n FROM ${LOCAL_TABLES.events} WHERE project_id = '${PROJECT}' AND dt BETWEEN '${fromDt}' AND '${toDt}'`,
    );
    return Number(rows[0]!.n);
  } finally {
    connection.closeSync();
  }
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-bench-insights-'));
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const engine = new DuckDbInsightEngine(dataDir);
  const baseline = await DuckDBInstance.create(':memory:');
  try {
    console.log(`Generating ${TOTAL.toLocaleString('en')} events, ${USERS.toLocaleString('en')} users, ${DAYS} days in ${dataDir}`);
    const t0 = performance.now();
    const g = generate(dataDir);
    console.log(
      `Generated in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${(g.bytes / 1e6).toFixed(0)} MB NDJSON, ${(g.gzipBytes / 1e6).toFixed(1)} MB as GZIP (${(g.gzipBytes / g.events).toFixed(1)} bytes per event)`,
    );
    console.log(
      `Machine load average: ${(await import('node:os'))
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')}\n`,
    );

    console.log('query | rows read | median time | per million rows | count(*) same files | ratio');
    for (const q of INSIGHT_QUERIES) {
      const prepared = engine.prepare(q.kind, q.definition, {
        projectId: PROJECT,
        projectCreatedAt: new Date(FIRST_DAY_MS - DAY_MS).toISOString(),
        dataThrough: new Date(FIRST_DAY_MS + (DAYS + 2) * DAY_MS).toISOString(),
        timeZone: process.env.BENCH_TIME_ZONE ?? 'UTC',
      });
      const rowsRead = await countAll(baseline, dataDir, prepared.fromDt, prepared.toDt);
      const times: number[] = [];
      const baseTimes: number[] = [];
      // A warm-up of each (DuckDB's first query in a process loads its JSON reader), then alternating rounds.
      await countAll(baseline, dataDir, prepared.fromDt, prepared.toDt);
      await engine.start(prepared, insightQueryId(prepared.sql, 'warm-up'));
      for (let round = 0; round < ROUNDS; round++) {
        let t = performance.now();
        const answer = await engine.start(prepared, insightQueryId(prepared.sql, String(round)));
        times.push(performance.now() - t);
        if (answer.state !== 'succeeded') throw new Error(`${q.name}: ${answer.error}`);
        t = performance.now();
        await countAll(baseline, dataDir, prepared.fromDt, prepared.toDt);
        baseTimes.push(performance.now() - t);
      }
      const ms = median(times);
      const baseMs = median(baseTimes);
      const perMillion = (x: number) => `${((x / rowsRead) * 1e6).toFixed(0)} ms`;
      console.log(
        `${q.name} | ${rowsRead.toLocaleString('en')} | ${(ms / 1000).toFixed(2)} s | ${perMillion(ms)} | ${perMillion(baseMs)} | ${(ms / baseMs).toFixed(2)}×`,
      );
    }

    console.log(
      `\nAthena, a project at ${EVENTS_PER_DAY_AT_SCALE.toLocaleString('en')} events a day, a query over a year ($${ATHENA_USD_PER_TB} per TB scanned):`,
    );
    const perEvent = g.gzipBytes / g.events;
    for (const q of INSIGHT_QUERIES) {
      const events = q.yearDaysRead * EVENTS_PER_DAY_AT_SCALE;
      const rawBytes = events * perEvent;
      const columnar = events * q.columns.reduce((sum, c) => sum + (g.columnGzipBytes[c] ?? 0), 0);
      const usd = (b: number) => `$${((b / 1e12) * ATHENA_USD_PER_TB).toFixed(2)}`;
      console.log(
        `${q.name}: ${q.yearDaysRead} days read, raw GZIP NDJSON ${(rawBytes / 1e9).toFixed(0)} GB → ${usd(rawBytes)} per query; if columnar: ${(columnar / 1e9).toFixed(0)} GB → ${usd(columnar)}`,
      );
    }
    console.log(
      `(${perEvent.toFixed(1)} GZIP bytes per event as generated; columns per event: ${Object.entries(g.columnGzipBytes)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([c, b]) => `${c} ${b.toFixed(1)}`)
        .join(', ')}, …)`,
    );
  } finally {
    await engine.close();
    baseline.closeSync();
    cleanup();
  }
}

await main();
