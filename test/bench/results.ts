/**
 * npm run bench:results — a benchmark, not a test: prints figures, and exits non-zero only if the
 * incremental results differ from the full recompute.
 *
 * Generates BENCH_EVENTS (default 300,000) raw events of one project and one experiment over
 * BENCH_DAYS (default 90) days into a temp data directory in the local layout, delivered as Firehose
 * would: files of an hour of arrivals each (landing/<stream>/arrival_hour=<hour of arrival>/,
 * contract/landing.ts), each written at its delivery
 * (2 minutes after the hour of arrivals it holds; the job's arrival allowance is set to the hour plus
 * 5 minutes). 2% of events arrive a day late (offline clients: old timestamps in new arrival hours),
 * and a third of users log in; some of those logins arrive three days after the purchases they
 * re-attribute (late identity links).
 *
 * Then the results job runs every 6 hours (02:00, 08:00, 14:00, 20:00 UTC) for the whole experiment:
 * the incremental count (DuckDbResultsQuery.countIncremental: the experiment's Parquet state, its
 * closed days rolled up into one base file, plus the events of the arrival hours since its watermark). On
 * days 1, 30, 60 and 90 (the 02:00 run) it also runs the full recompute over the run's whole window
 * (count(), the reference) and prints, for that run: the raw rows each read and their ratio, the state
 * files and state bytes the incremental count read (base included), the enrolled users and the state
 * bytes per enrolled user, the state files it would read without the base (every slice written so
 * far), and whether both give the same totals and series rows (hourly on day 1, a run under 3 days; "equal", or the differences and exit
 * code 1). The experiment has five metrics beyond its goal (issue 22): a conversion, two counts, a
 * sum of the purchase amount and the same sum capped at its 99th percentile; "equal" covers them too
 * (sums to 12 significant digits: doubles added in another order), and the base carries their rows.
 * On the check days the full recompute also runs without the metrics, and the time ratio (with /
 * without) shows what the metrics cost. The temp directory is removed at the end (also on Ctrl-C).
 *
 * CUPED is on as in the product (docs/decisions/cuped.md: a 14-day pre-exposure window, the goal's
 * conversion appended as a last metric for its covariate); BENCH_CUPED=off runs the same bench
 * without it, so the rows and bytes read with CUPED on and off can be compared (each run prints which).
 */
import '../../bin/node-version';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbResultsQuery, readRows } from '../../lambdas/adapters/duckdb-results-query';
import { quoteLiteral } from '../../lambdas/adapters/sql/render';
import { landingHourDir } from '../../lambdas/adapters/duckdb-stream-views';
import { landingHour } from '../../lambdas/contract/landing';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';
import { seriesInterval } from '../../lambdas/domain/results-series';
import type { CountRequest, CountResult } from '../../lambdas/ports';
import { prng } from '../../bin/prng';
import { goalAsMetric } from '../../lambdas/services/count-request';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 300_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 90);
const USERS = Math.max(10, Math.round(TOTAL / 10));
const PROJECT = 'bench-project';
const EXPERIMENT = 'Checkout Flow';
const VARIANTS = ['control', 'treatment'];
const FIRST_DAY_MS = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;
/** CUPED's pre-exposure window as the product's default; BENCH_CUPED=off: no CUPED. */
const CUPED_DAYS = process.env.BENCH_CUPED === 'off' ? undefined : 14;
const CUPED_TEXT = CUPED_DAYS === undefined ? 'CUPED off' : `CUPED on, ${CUPED_DAYS}-day window`;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const out = createWriteStream(path);
  let chunk = '';
  for (const line of lines) {
    chunk += line + '\n';
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

function eventLine(e: { user: string; name: string; ms: number; received: number; props: Record<string, unknown>; seq: number }): string {
  const ts = new Date(e.ms).toISOString();
  // The StoredEvent shape (docs/data-model.md, "Raw event schema"); user_id equals sent_user_id here.
  return JSON.stringify({
    project_id: PROJECT,
    dedupe_key: `bench-${e.seq.toString(36)}`,
    event_id: null,
    name: e.name,
    user_id: e.user,
    sent_user_id: e.user,
    session_id: `s-${e.user}`,
    timestamp: ts,
    received_at: new Date(e.received).toISOString(),
    properties: e.props,
    platform: 'web',
    app_version: '4.2.0',
    app_build_number: null,
    os_version: null,
    environment: 'production',
    device_manufacturer: null,
    locale: 'en-GB',
    timezone: 'Europe/London',
    country: 'GB',
    region: null,
    city: null,
    sdk: 'tally-js',
    sdk_version: '1.0.0',
    source: 'v1',
  });
}

const HOUR_MS = 3_600_000;
/** The bench's Firehose buffers an hour of arrivals per file (AWS's at most 15 minutes), so fewer, larger files. */
const DELIVERY_MS = HOUR_MS;
/** The arrival allowance to match: the buffering interval plus 5 minutes, as the job's default is for AWS. */
const ALLOWANCE_MS = DELIVERY_MS + 5 * 60_000;
/** A delivered file: its partition (the day of its events' timestamps) and its modification time. */
const fileKey = (dir: 'events' | 'identities', dt: string, deliveredAt: number) => `${dir}|${dt}|${deliveredAt}`;

async function generate(): Promise<{ events: number; links: number; bytes: number; gzipBytes: number; deliveries: Delivery[] }> {
  const random = prng(42);
  // Each user starts on a random day; a third of them start anonymous and log in (identity link
  // user -> anon, the anonymous ID being canonical as the earlier-seen one), some three days late.
  const startDay = Array.from({ length: USERS }, () => Math.floor(random() * DAYS));
  const anonymous = Array.from({ length: USERS }, () => random() < 1 / 3);
  const variant = (u: number) => VARIANTS[u % VARIANTS.length]!;
  const active: number[] = [];
  const byDay: number[][] = Array.from({ length: DAYS }, () => []);
  startDay.forEach((d, u) => byDay[d]!.push(u));

  const files = new Map<string, string[]>();
  const deliver = (dir: 'events' | 'identities', dt: string, received: number, line: string) => {
    const deliveredAt = (Math.floor(received / DELIVERY_MS) + 1) * DELIVERY_MS + 2 * 60_000;
    const key = fileKey(dir, dt, deliveredAt);
    let lines = files.get(key);
    if (!lines) files.set(key, (lines = []));
    lines.push(line);
  };
  const arrival = (ms: number) => (random() < 0.02 ? ms + DAY_MS + random() * 6 * HOUR_MS : ms);
  const addEvent = (e: { user: string; name: string; ms: number; props: Record<string, unknown>; seq: number }) => {
    const received = arrival(e.ms);
    deliver('events', dayOf(e.ms), received, eventLine({ ...e, received }));
  };

  let seq = 0;
  let bytes = 0;
  let gzipBytes = 0;
  let links = 0;
  const perDay = Math.floor(TOTAL / DAYS);
  for (let day = 0; day < DAYS; day++) {
    const dayMs = FIRST_DAY_MS + day * DAY_MS;
    const newcomers = byDay[day]!;
    for (const u of newcomers) {
      const ms = dayMs + Math.floor(random() * DAY_MS * 0.5);
      const id = anonymous[u] ? `anon-${u}` : `user-${u}`;
      addEvent({ user: id, name: '$experiment_exposure', ms, props: { $experiment_name: EXPERIMENT, $variant: variant(u) }, seq: seq++ });
      if (anonymous[u]) {
        const linkedAt = ms + (random() < 0.2 ? 3 * DAY_MS : 60_000);
        const line = JSON.stringify({
          project_id: PROJECT,
          id: `user-${u}`,
          canonical_id: `anon-${u}`,
          version: 1,
          timestamp: new Date(linkedAt).toISOString(),
          reason: 'link',
        });
        deliver('identities', dayOf(linkedAt), linkedAt, line);
        links++;
      }
      active.push(u);
    }
    // The rest of the day's events from active users: page views (with the super property),
    // carts, purchases (server-side: under the user ID, no experiment property).
    const target = day === DAYS - 1 ? TOTAL - seq : perDay - newcomers.length;
    for (let i = 0; i < target; i++) {
      const u = active[Math.floor(random() * active.length)]!;
      const ms = dayMs + Math.floor(DAY_MS * (0.5 + random() * 0.5));
      const r = random();
      const treatmentLift = variant(u) === 'treatment' ? 0.012 : 0;
      if (r < 0.03 + treatmentLift) {
        addEvent({ user: `user-${u}`, name: 'purchase', ms, props: { amount: Math.round(random() * 10000) / 100, currency: 'EUR' }, seq: seq++ });
      } else if (r < 0.15) {
        addEvent({ user: `user-${u}`, name: 'add_to_cart', ms, props: { sku: `sku-${Math.floor(random() * 500)}` }, seq: seq++ });
      } else {
        const id = anonymous[u] && random() < 0.3 ? `anon-${u}` : `user-${u}`;
        addEvent({ user: id, name: 'page_view', ms, props: { path: `/p/${Math.floor(random() * 50)}`, $experiment_checkout_flow: variant(u) }, seq: seq++ });
      }
    }
    if ((day + 1) % 10 === 0) process.stdout.write(`  generated ${day + 1}/${DAYS} days, ${seq.toLocaleString('en')} events\n`);
  }
  const deliveries = [...files].map(([key, lines]) => {
    const [dir, dt, deliveredAt] = key.split('|') as ['events' | 'identities', string, string];
    bytes += lines.reduce((total, l) => total + l.length + 1, 0);
    // What Firehose would store on AWS: the file GZIP-compressed (what Athena scans and bills).
    if (dir === 'events') gzipBytes += gzipSync(lines.join('\n') + '\n').length;
    return { dir, dt, deliveredAt: Number(deliveredAt), lines };
  });
  deliveries.sort((a, b) => a.deliveredAt - b.deliveredAt);
  return { events: seq, links, bytes, gzipBytes, deliveries };
}

interface Delivery {
  dir: 'events' | 'identities';
  dt: string;
  deliveredAt: number;
  lines: string[];
}

/** Writes the files delivered by `now` (from `next` on), each with its delivery as modification time; returns the next index. */
async function deliverUntil(dataDir: string, deliveries: Delivery[], next: number, now: number): Promise<number> {
  for (; next < deliveries.length && deliveries[next]!.deliveredAt <= now; next++) {
    const d = deliveries[next]!;
    // Landed under the hour their arrivals began (delivered 2 minutes after the hour's end), as Firehose keys an object.
    const folder = landingHourDir(dataDir, d.dir, landingHour(d.deliveredAt - DELIVERY_MS - 2 * 60_000));
    mkdirSync(folder, { recursive: true });
    const path = join(folder, `bench-${next}.ndjson`);
    await writeLines(path, d.lines);
    const when = new Date(d.deliveredAt);
    utimesSync(path, when, when);
  }
  return next;
}

/** The experiment's metrics beyond the goal: every kind, one capped. */
const METRICS: ExperimentMetric[] = [
  { name: 'Carts', event: 'add_to_cart', kind: 'conversion', role: 'secondary' },
  { name: 'Cart adds', event: 'add_to_cart', kind: 'count', role: 'secondary' },
  { name: 'Page views', event: 'page_view', kind: 'count', role: 'guardrail', direction: 'decrease' },
  { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary' },
  { name: 'Revenue (capped)', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary', cap: 0.99 },
];

const digits = (x: number) => Number(x.toPrecision(12));
const comparable = (r: CountResult) =>
  JSON.stringify({
    variants: r.variants,
    multipleExposures: r.multipleExposures,
    days: [...(r.periods ?? [])].sort((x, y) => `${x.variant} ${x.period}`.localeCompare(`${y.variant} ${y.period}`)),
    metrics: r.metrics?.map((m) => ({ ...m, variants: m.variants.map((v) => ({ ...v, sum: digits(v.sum), sum_squares: digits(v.sum_squares) })) })),
  });

/** Total size of the files under dir whose names end with ext. */
function treeBytes(dir: string, ext: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(ext)) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-bench-results-'));
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const query = new DuckDbResultsQuery(dataDir, { arrivalAllowanceMs: ALLOWANCE_MS });
  try {
    console.log(`Generating ${TOTAL.toLocaleString('en')} events for one experiment over ${DAYS} days in ${dataDir}; ${CUPED_TEXT}`);
    const genStart = performance.now();
    const generated = await generate();
    let delivered = 0;
    const genSeconds = (performance.now() - genStart) / 1000;
    console.log(
      `Generated ${generated.events.toLocaleString('en')} events (${(generated.bytes / 1e6).toFixed(0)} MB NDJSON in ${generated.deliveries.length} files, written as they are delivered) and ${generated.links.toLocaleString('en')} identity links in ${genSeconds.toFixed(1)} s`,
    );

    const request = (now: number): CountRequest => ({
      projectId: PROJECT,
      experimentId: 'bench',
      experimentName: EXPERIMENT,
      variants: VARIANTS,
      goalEvent: 'purchase',
      from: new Date(FIRST_DAY_MS).toISOString(),
      to: new Date(now).toISOString(),
      projectCreatedAt: new Date(FIRST_DAY_MS - DAY_MS).toISOString(),
      // The product's interval: hourly points on day 1 (a run under 3 days), daily after.
      series: seriesInterval({ from: new Date(FIRST_DAY_MS).toISOString(), to: new Date(now).toISOString() }),
      // With CUPED, the goal's conversion as a last metric, as the product counts it (count-request.ts).
      metrics: CUPED_DAYS === undefined ? METRICS : [...METRICS, goalAsMetric({ goal_event: 'purchase' })],
      ...(CUPED_DAYS === undefined ? {} : { cupedLookbackDays: CUPED_DAYS }),
    });
    // Warm DuckDB up (instance creation, extension loading) on a window that is not benchmarked.
    await query.count(request(FIRST_DAY_MS - HOUR_MS));

    const checkDays = new Set([1, 30, 60, 90].filter((d) => d <= DAYS));
    const mismatches: string[] = [];
    const rows: Array<{
      day: number;
      incRows: number;
      fullRows: number;
      stateFiles: number;
      stateBytes: number;
      enrolled: number;
      slicesWritten: number;
      check: string;
      metricsCost: number;
    }> = [];
    let slicesWritten = 0;
    console.log('\nThe job runs every 6 hours; on the days below, its 02:00 run against the full recompute:');
    console.log(
      'day  incremental rows  full rows  rows ratio  state files  state bytes  enrolled  bytes/enrolled  files without base  check  full time with/without metrics',
    );
    for (let day = 1; day <= DAYS; day++) {
      for (const hour of [2, 8, 14, 20]) {
        const now = FIRST_DAY_MS + day * DAY_MS + hour * HOUR_MS;
        delivered = await deliverUntil(dataDir, generated.deliveries, delivered, now);
        const inc = await query.countIncremental({ ...request(now), now: new Date(now).toISOString() });
        if (inc.incremental.committed) slicesWritten++;
        if (hour !== 2 || !checkDays.has(day)) continue;
        const fullStart = performance.now();
        const full = await query.count(request(now));
        const fullMs = performance.now() - fullStart;
        const { metrics: _metrics, ...withoutMetrics } = request(now);
        const bareStart = performance.now();
        await query.count(withoutMetrics);
        const bareMs = performance.now() - bareStart;
        const check = comparable(inc) === comparable(full) ? 'equal' : 'DIFFERENT';
        if (check !== 'equal') mismatches.push(`day ${day}: incremental ${comparable(inc)}\n        full ${comparable(full)}`);
        const r = {
          day,
          incRows: inc.rowsRead ?? 0,
          fullRows: full.rowsRead ?? 0,
          stateFiles: inc.incremental.stateFiles ?? 0,
          stateBytes: inc.incremental.stateBytes ?? 0,
          enrolled: full.variants.reduce((n, v) => n + v.enrolled, 0),
          slicesWritten,
          check,
          metricsCost: fullMs / bareMs,
        };
        rows.push(r);
        console.log(
          `${String(day).padStart(3)}  ${r.incRows.toLocaleString('en').padStart(16)}  ${r.fullRows.toLocaleString('en').padStart(9)}  ${(r.incRows / r.fullRows).toFixed(3).padStart(10)}  ${String(r.stateFiles).padStart(11)}  ${r.stateBytes.toLocaleString('en').padStart(11)}  ${r.enrolled.toLocaleString('en').padStart(8)}  ${(r.stateBytes / Math.max(1, r.enrolled)).toFixed(1).padStart(14)}  ${String(r.slicesWritten).padStart(18)}  ${check.padEnd(5)}  ${r.metricsCost.toFixed(2).padStart(30)}`,
        );
      }
    }
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const stateBytes = treeBytes(join(dataDir, 'results-state'), '.parquet') + treeBytes(join(dataDir, 'results-base'), '.parquet');
    console.log(
      `\nDay ${DAYS} sizes: the raw events of the window ${(generated.gzipBytes / 1e6).toFixed(1)} MB as GZIP NDJSON (what Athena scans for a full recompute; one day is about ${(generated.gzipBytes / DAYS / 1e6).toFixed(2)} MB), the state ${(stateBytes / 1e6).toFixed(1)} MB of Parquet (${(stateBytes / generated.gzipBytes).toFixed(3)} of the raw; Athena reads only the columns it needs).`,
    );
    // What the base holds on the last day, by kind of row: the growth that exact re-attribution keeps.
    const base = readdirSync(join(dataDir, 'results-base'), { recursive: true, withFileTypes: true }).find((e) => e.isFile() && e.name === 'base.parquet');
    if (base) {
      const duck = await DuckDBInstance.create(':memory:');
      const connection = await duck.connect();
      const kinds = await readRows(
        connection,
        `WITH rows AS (SELECT *, bool_or(variant IS NOT NULL) OVER (PARTITION BY sent_user_id) AS enrolled_id
           FROM read_parquet(${quoteLiteral(join(base.parentPath, base.name))}))
         SELECT CASE WHEN metric_source IS NOT NULL THEN 'metric event (one per source and event)' WHEN pending_key IS NOT NULL THEN 'pending' WHEN variant IS NOT NULL THEN 'enrollment'
           WHEN enrolled_id THEN 'goal hour of an ID that enrolled under itself' ELSE 'goal hour of an ID that never enrolled under itself' END AS kind,
           count(*) AS n, count(DISTINCT sent_user_id) AS ids FROM rows GROUP BY kind ORDER BY kind`,
      );
      connection.closeSync();
      console.log(`\nThe base on day ${DAYS}, by kind of row (rows, IDs as sent):`);
      for (const k of kinds)
        console.log(`  ${String(k.kind).padEnd(52)} ${Number(k.n).toLocaleString('en').padStart(8)} ${Number(k.ids).toLocaleString('en').padStart(8)}`);
    }
    console.log(mismatches.length === 0 ? `Incremental == full recompute on days ${[...checkDays].join(', ')}: equal` : `MISMATCH\n${mismatches.join('\n')}`);
    console.log(
      `\nSUMMARY bench:results (${CUPED_TEXT}) — ${generated.events.toLocaleString('en')} events over ${DAYS} days, a run every 6 hours; day ${first.day} -> day ${last.day}: raw rows read per run ${first.incRows.toLocaleString('en')} -> ${last.incRows.toLocaleString('en')} (full recompute ${first.fullRows.toLocaleString('en')} -> ${last.fullRows.toLocaleString('en')}, ratio ${(last.incRows / last.fullRows).toFixed(3)} on day ${last.day}); state files read ${first.stateFiles} -> ${last.stateFiles} (${last.slicesWritten} slices written: the base of the closed days plus the open day's slices), state bytes ${first.stateBytes.toLocaleString('en')} -> ${last.stateBytes.toLocaleString('en')} (per enrolled user ${(first.stateBytes / Math.max(1, first.enrolled)).toFixed(1)} -> ${(last.stateBytes / Math.max(1, last.enrolled)).toFixed(1)}); with ${METRICS.length} metrics (one capped) the full recompute takes ${last.metricsCost.toFixed(2)}x its time without them on day ${last.day}; ${mismatches.length === 0 ? 'equal' : 'DIFFERENT'}`,
    );
    if (mismatches.length > 0) process.exitCode = 1;
  } finally {
    await query.close();
    cleanup();
  }
}

await main();
