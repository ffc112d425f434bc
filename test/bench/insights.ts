/**
 * npm run bench:insights — a benchmark, not a test: prints figures (issues 25 and 35, "Measured").
 *
 * BENCH_TIME_ZONE (default UTC) is the project time zone the insight queries count days in.
 *
 * 1. Generates BENCH_EVENTS (default 1,000,000) raw events of one project over BENCH_DAYS (default 30)
 *    days from BENCH_USERS (default 50,000) users (a third start anonymous and log in), with platform,
 *    country, app version and a `plan` property to break down by, in both layouts of one run:
 *    - JSON: the layout before issue 35, GZIP NDJSON per project, event day and arrival hour, which
 *      Athena reads whole (a row format: every byte of every object of the days a query names);
 *    - curated: the same events landed by arrival hour, then compacted by the compaction job
 *      (lambdas/services/compact-landing.ts) into Parquet (ZSTD) partitions by project and day.
 * 2. Runs each insight query of INSIGHT_QUERIES (the one SQL text `npm start` and Athena run) over
 *    each layout's events view with the same DuckDB, BENCH_ROUNDS rounds (default 3, alternating;
 *    medians), and prints per query `bytes vs JSON` and `time vs JSON`: the bytes a query reads are,
 *    for JSON, the GZIP bytes of its days' objects, and for Parquet the compressed column chunks of
 *    the columns DuckDB's plan reads (its READ_PARQUET projections and filters, from the profiler)
 *    in its days' files: what Athena bills ($5 per TB scanned, https://aws.amazon.com/athena/pricing/).
 *    The JSON layout has no curated part: its events are read as the view's landing tail
 *    (events_tail, the watermark filter applied to each row), the curated table empty. Per query
 *    it also prints the bytes an event of each Parquet column read, and the query's own work: the
 *    same text over its rows copied into memory first, which both layouts pay whatever the storage
 *    (the floor of `time vs JSON`).
 * 3. Prints Athena's cost of each query for a project at 10 million events a day over a year from
 *    those bytes per event, and the curated files and bytes per partition after compaction.
 */
import '../../bin/node-version';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbCompactionStore } from '../../lambdas/adapters/duckdb-compaction';
import { EVENT_COLUMNS, IDENTITY_COLUMNS, type DuckType } from '../../lambdas/adapters/duckdb-columns';
import { InProcessDuckDb, type LocalView } from '../../lambdas/adapters/duckdb-local';
import { DuckDbInsightEngine } from '../../lambdas/adapters/duckdb-insights';
import { CURATED_COLUMNS, curatedFiles, curatedSelect, landingHourDir, streamViews } from '../../lambdas/adapters/duckdb-stream-views';
import { quoteLiteral } from '../../lambdas/adapters/sql/render';
import { curatedTable, EVENTS_TAIL_VIEW, landingHour } from '../../lambdas/contract/landing';
import { INSIGHT_KINDS, type InsightKindName } from '../../lambdas/domain/insights/kinds';
import { compactLanding } from '../../lambdas/services/compact-landing';
import { prng } from '../../bin/prng';
import { parquetColumnsRead } from '../helpers/parquet-columns-read';

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
  },
];

const PLATFORMS = ['ios', 'android', 'web'];
const COUNTRIES = ['GB', 'DE', 'FR', 'US', 'ES', 'IT', 'NL', 'SE', 'PL', 'BR', 'IN', 'JP', null];
const PLANS = Array.from({ length: 20 }, (_, i) => `plan-${i}`);

interface Generated {
  events: number;
  /** GZIP bytes of the JSON layout's objects, by event day (what Athena reads of a day). */
  jsonGzipBytesByDay: Map<string, number>;
  identityGzipBytes: number;
}

/** The JSON layout (before issue 35) under <dir>/json, and the landing layout under <dir>/landing. */
function generate(dataDir: string): Generated {
  const random = prng(25);
  const json = new Map<string, string[]>();
  const landing = new Map<string, string[]>();
  const anonymous = Array.from({ length: USERS }, () => random() < 1 / 3);
  const platform = Array.from({ length: USERS }, () => PLATFORMS[Math.floor(random() * PLATFORMS.length)]!);
  const country = Array.from({ length: USERS }, () => COUNTRIES[Math.floor(random() * COUNTRIES.length)]!);
  const links: Array<Record<string, unknown>> = [];
  for (let u = 0; u < USERS; u++) {
    if (anonymous[u]) {
      links.push({
        project_id: PROJECT,
        id: `user-${u}`,
        canonical_id: `anon-${u}`,
        version: 1,
        timestamp: new Date(FIRST_DAY_MS + random() * DAYS * DAY_MS).toISOString(),
        reason: 'link',
      });
    }
  }
  const push = (map: Map<string, string[]>, key: string, line: string) => {
    let lines = map.get(key);
    if (!lines) map.set(key, (lines = []));
    lines.push(line);
  };
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
      project_id: PROJECT,
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
    const hour = landingHour(received);
    push(landing, hour, JSON.stringify(event));
    // The JSON layout kept project_id in the path only.
    const { project_id: _project, ...line } = event;
    push(json, `${day(ms)}|${hour}`, JSON.stringify(line));
  }
  const jsonGzipBytesByDay = new Map<string, number>();
  for (const [key, lines] of json) {
    const [dt, hour] = key.split('|') as [string, string];
    const folder = join(dataDir, 'json', 'events', `project_id=${PROJECT}`, `dt=${dt}`, `received=${hour}`);
    mkdirSync(folder, { recursive: true });
    // What Firehose stored on AWS: each object GZIP-compressed, what Athena scans and bills, and
    // what the JSON layout's queries below read (the bytes counted are the bytes timed).
    const object = gzipSync(lines.join('\n') + '\n');
    jsonGzipBytesByDay.set(dt, (jsonGzipBytesByDay.get(dt) ?? 0) + object.length);
    writeFileSync(join(folder, 'bench.ndjson.gz'), object);
  }
  for (const [hour, lines] of landing) {
    const folder = landingHourDir(dataDir, 'events', hour);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'bench.ndjson'), lines.join('\n') + '\n');
  }
  const linkDir = join(dataDir, 'json', 'identities', `project_id=${PROJECT}`, `dt=${FIRST_DAY}`);
  mkdirSync(linkDir, { recursive: true });
  const linkObject = gzipSync(links.map(({ project_id: _p, ...l }) => JSON.stringify(l)).join('\n') + '\n');
  writeFileSync(join(linkDir, 'links.ndjson.gz'), linkObject);
  const landingLinks = landingHourDir(dataDir, 'identities', landingHour(FIRST_DAY_MS));
  mkdirSync(landingLinks, { recursive: true });
  writeFileSync(join(landingLinks, 'links.ndjson'), links.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { events: TOTAL, jsonGzipBytesByDay, identityGzipBytes: linkObject.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The JSON layout's views for a query: its days' NDJSON files (hive project_id, dt), every identity file. */
function jsonViews(dataDir: string, fromDt: string, toDt: string): LocalView[] {
  const days: string[] = [];
  for (let t = Date.parse(`${fromDt}T00:00:00Z`); t <= Date.parse(`${toDt}T00:00:00Z`); t += DAY_MS) days.push(day(t));
  const glob = (stream: string, dt: string, nested: boolean) =>
    join(dataDir, 'json', stream, `project_id=${PROJECT}`, `dt=${dt}`, ...(nested ? ['*'] : []), '*.ndjson.gz');
  const read = (files: string[], columns: Record<string, DuckType>, arrival: boolean) =>
    `SELECT * ${arrival ? 'EXCLUDE (received) ' : ''}FROM read_json([${files.map(quoteLiteral).join(', ')}], format = 'newline_delimited', columns = {${Object.entries(
      columns,
    )
      .map(([c, t]) => `${quoteLiteral(c)}: ${quoteLiteral(t)}`)
      .join(
        ', ',
      )}}, hive_partitioning = true, hive_types = {'project_id': 'VARCHAR', 'dt': 'VARCHAR'${arrival ? ", 'received': 'VARCHAR'" : ''}}, hive_types_autocast = false, union_by_name = true)`;
  const eventDays = days.filter((dt) => (GENERATED_DAYS as Set<string>).has(dt));
  // The JSON layout has no curated part: the insights read all its events as the tail (the watermark
  // filter applied to every row, as it was), and an empty curated table.
  return [
    { name: curatedTable('events'), sql: curatedSelect([], CURATED_COLUMNS.events) },
    {
      name: EVENTS_TAIL_VIEW,
      sql: read(
        eventDays.map((dt) => glob('events', dt, true)),
        EVENT_COLUMNS,
        true,
      ),
    },
    { name: 'identities', sql: read([glob('identities', FIRST_DAY, false)], IDENTITY_COLUMNS, false) },
  ];
}
const GENERATED_DAYS = new Set(Array.from({ length: DAYS }, (_, i) => day(FIRST_DAY_MS + i * DAY_MS)));

/** The curated layout's views for a query (what `npm start` builds: duckdb-stream-views.ts). */
async function curatedViews(dataDir: string, fromDt: string, toDt: string): Promise<LocalView[]> {
  return [
    ...(await streamViews(dataDir, 'events', { projectId: PROJECT, fromDt, toDt })),
    ...(await streamViews(dataDir, 'identities', { projectId: PROJECT })),
  ];
}

/** Compressed bytes of each of the given columns in Parquet files (every row group). */
async function columnBytes(duck: InProcessDuckDb, files: string[], columns: Set<string>): Promise<Map<string, number>> {
  if (files.length === 0 || columns.size === 0) return new Map();
  const rows = await duck.use([], (session) =>
    session.rows(`SELECT path_in_schema AS c, sum(total_compressed_size) AS b FROM parquet_metadata([${files.map(quoteLiteral).join(', ')}]) GROUP BY 1`),
  );
  return new Map(rows.filter((r) => columns.has(String(r.c))).map((r) => [String(r.c), Number(r.b)]));
}
const total = (bytes: Map<string, number>) => [...bytes.values()].reduce((a, b) => a + b, 0);

/**
 * The query's own work without reading a file: the same text over the curated rows copied into
 * memory first (median of ROUNDS). Both layouts pay it; only their scans differ, so it bounds what
 * any storage can do for `time vs JSON`.
 */
async function computeAloneMs(duck: InProcessDuckDb, views: LocalView[], sql: string): Promise<number> {
  return duck.use(views, async (session) => {
    for (const view of [curatedTable('events'), 'identities']) {
      await session.rows(`CREATE TEMP TABLE memory_${view} AS SELECT * FROM ${view}`);
      await session.rows(`CREATE OR REPLACE TEMP VIEW ${view} AS SELECT * FROM memory_${view}`);
    }
    await session.rows(sql);
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const t = performance.now();
      await session.rows(sql);
      times.push(performance.now() - t);
    }
    return median(times);
  });
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-bench-insights-'));
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const engine = new DuckDbInsightEngine(dataDir);
  const duck = new InProcessDuckDb();
  try {
    console.log(`Generating ${TOTAL.toLocaleString('en')} events, ${USERS.toLocaleString('en')} users, ${DAYS} days in ${dataDir}`);
    let t0 = performance.now();
    const g = generate(dataDir);
    const jsonGzip = [...g.jsonGzipBytesByDay.values()].reduce((a, b) => a + b, 0);
    console.log(
      `Generated in ${((performance.now() - t0) / 1000).toFixed(1)} s: JSON layout ${(jsonGzip / 1e6).toFixed(1)} MB as GZIP (${(jsonGzip / g.events).toFixed(1)} bytes per event)`,
    );

    // The curated layout: the compaction job over the landing hours, as npm start runs it.
    t0 = performance.now();
    const [compacted] = await compactLanding(new DuckDbCompactionStore(dataDir, duck), {
      nowMs: Date.now(),
      closeAfterMs: 0,
      maxHours: 24 * (DAYS + 2),
      graceMs: 3_600_000,
      landingRetentionMs: 10 * 365 * DAY_MS,
    });
    console.log(
      `Compacted in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${compacted!.rows!.toLocaleString('en')} events into ${compacted!.partitions} partitions, ${compacted!.files} Parquet files, ${(compacted!.bytes / 1e6).toFixed(1)} MB (${(compacted!.bytes / compacted!.rows!).toFixed(1)} bytes per event, every column)`,
    );
    const partitionFiles = await Promise.all([...GENERATED_DAYS].map((dt) => curatedFiles(dataDir, 'events', { projectId: PROJECT, fromDt: dt, toDt: dt })));
    const sizes = await Promise.all(
      partitionFiles.map(async (files) =>
        (await Promise.all(files.map(async (f) => (await import('node:fs/promises')).stat(f)))).reduce((a, st) => a + st.size, 0),
      ),
    );
    console.log(
      `Files per partition (project, day): at most ${Math.max(...partitionFiles.map((f) => f.length))} (one per 128 MB: every partition here is under it); bytes per partition: ${(Math.min(...sizes) / 1e6).toFixed(2)}–${(Math.max(...sizes) / 1e6).toFixed(2)} MB, median ${(median(sizes) / 1e6).toFixed(2)} MB`,
    );
    console.log(
      `Machine load average: ${(await import('node:os'))
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')}\n`,
    );

    console.log('query | JSON: bytes read, median time | Parquet: bytes read, median time | bytes vs JSON | time vs JSON');
    const yearLines: string[] = [];
    for (const q of INSIGHT_QUERIES) {
      const prepared = engine.prepare(q.kind, q.definition, {
        projectId: PROJECT,
        projectCreatedAt: new Date(FIRST_DAY_MS - DAY_MS).toISOString(),
        dataThrough: new Date(FIRST_DAY_MS + (DAYS + 2) * DAY_MS).toISOString(),
        timeZone: process.env.BENCH_TIME_ZONE ?? 'UTC',
      });
      const run = async (layout: 'json' | 'curated') => {
        const views = layout === 'json' ? jsonViews(dataDir, prepared.fromDt, prepared.toDt) : await curatedViews(dataDir, prepared.fromDt, prepared.toDt);
        return duck.use(views, (session) => session.rows(prepared.sql));
      };
      // The same answer from both layouts, then a warm-up of each and alternating rounds.
      const [fromJson, fromCurated] = [await run('json'), await run('curated')];
      // Sums of doubles may differ in their last bits with the order rows are read in.
      const same = (rows: unknown) =>
        JSON.stringify(rows, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : typeof v === 'number' ? Number(v.toPrecision(12)) : v));
      if (same(fromJson) !== same(fromCurated)) throw new Error(`${q.name}: the layouts give different rows`);
      const times = { json: [] as number[], curated: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const layout of ['json', 'curated'] as const) {
          const t = performance.now();
          await run(layout);
          times[layout].push(performance.now() - t);
        }
      }
      // What the Parquet scans read: the profiler's READ_PARQUET columns, their compressed chunks.
      const profileFile = join(dataDir, 'profile.json');
      await duck.use(await curatedViews(dataDir, prepared.fromDt, prepared.toDt), async (session) => {
        await session.rows(`PRAGMA enable_profiling = 'json'`);
        await session.rows(`PRAGMA profiling_output = ${quoteLiteral(profileFile)}`);
        await session.rows(prepared.sql);
      });
      const columns = parquetColumnsRead(JSON.parse(readFileSync(profileFile, 'utf8')));
      const eventFiles = await curatedFiles(dataDir, 'events', { projectId: PROJECT, fromDt: prepared.fromDt, toDt: prepared.toDt });
      const eventColumnBytes = await columnBytes(duck, eventFiles, columns.events);
      const parquetEventBytes = total(eventColumnBytes);
      const parquetIdentityBytes = total(await columnBytes(duck, await curatedFiles(dataDir, 'identities', { projectId: PROJECT }), columns.identities));
      const jsonEventBytes = [...g.jsonGzipBytesByDay].filter(([dt]) => dt >= prepared.fromDt && dt <= prepared.toDt).reduce((a, [, b]) => a + b, 0);
      const jsonBytes = jsonEventBytes + g.identityGzipBytes;
      const parquetBytes = parquetEventBytes + parquetIdentityBytes;
      const [jsonMs, curatedMs] = [median(times.json), median(times.curated)];
      console.log(
        `${q.name} | ${(jsonBytes / 1e6).toFixed(1)} MB, ${(jsonMs / 1000).toFixed(2)} s | ${(parquetBytes / 1e6).toFixed(1)} MB, ${(curatedMs / 1000).toFixed(2)} s | bytes vs JSON: ${(parquetBytes / jsonBytes).toFixed(2)} | time vs JSON: ${(curatedMs / jsonMs).toFixed(2)}`,
      );
      // A year at scale: the events' bytes per event of the days read, times the year's events.
      const eventsRead = Number(
        (
          await duck.use(await curatedViews(dataDir, prepared.fromDt, prepared.toDt), (s) =>
            s.rows(`SELECT count(*) AS n FROM events WHERE dt BETWEEN ${quoteLiteral(prepared.fromDt)} AND ${quoteLiteral(prepared.toDt)}`),
          )
        )[0]!.n,
      );
      console.log(
        `  Parquet columns read: events ${[...eventColumnBytes]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([c, b]) => `${c} ${(b / eventsRead).toFixed(2)}`)
          .join(', ')} bytes an event; identities ${[...columns.identities].sort().join(', ') || 'none'} (${(parquetIdentityBytes / 1e6).toFixed(2)} MB)`,
      );
      const computeMs = await computeAloneMs(duck, await curatedViews(dataDir, prepared.fromDt, prepared.toDt), prepared.sql);
      console.log(
        `  the query's work alone (its rows in memory, no file read): ${(computeMs / 1000).toFixed(2)} s, ${(computeMs / jsonMs).toFixed(2)} of JSON's time: the floor of time vs JSON`,
      );
      const yearEvents = q.yearDaysRead * EVENTS_PER_DAY_AT_SCALE;
      const usd = (bytes: number) => `$${((bytes / 1e12) * ATHENA_USD_PER_TB).toFixed(2)}`;
      const yearJson = (jsonEventBytes / eventsRead) * yearEvents;
      const yearParquet = (parquetEventBytes / eventsRead) * yearEvents;
      yearLines.push(
        `${q.name}: ${q.yearDaysRead} days read; JSON ${(yearJson / 1e9).toFixed(0)} GB → ${usd(yearJson)}; Parquet ${(yearParquet / 1e9).toFixed(0)} GB → ${usd(yearParquet)} per query`,
      );
    }

    console.log(
      `\nAthena, a project at ${EVENTS_PER_DAY_AT_SCALE.toLocaleString('en')} events a day, a query over a year ($${ATHENA_USD_PER_TB} per TB scanned), from the bytes per event measured above:`,
    );
    for (const line of yearLines) console.log(line);
  } finally {
    await engine.close();
    await duck.close();
    if (process.env.BENCH_KEEP) console.log(`Kept ${dataDir}`);
    else cleanup();
  }
}

await main();
