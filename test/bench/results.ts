/**
 * npm run bench:results — a benchmark, not a test: prints figures, asserts nothing.
 *
 * Generates BENCH_EVENTS (default 1,000,000) raw events of one project and one experiment over 30
 * days, plus identity links (anonymous IDs logging in), into a temp data directory in the local
 * layout (events/ and identities/ under project_id=<id>/dt=<day>/), then runs the local results
 * query (DuckDbResultsQuery) for windows of 1 day, 3 days and the whole month, printing wall time and
 * rows read for each. The cost follows the window, not the history: rows read are those of the
 * window's days only. The temp directory is removed at the end (also on Ctrl-C).
 */
import '../../bin/node-version';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { DuckDbResultsQuery } from '../../lambdas/adapters/duckdb-results-query';
import type { CountRequest } from '../../lambdas/ports';

const TOTAL = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const DAYS = 30;
const USERS = Math.max(10, Math.round(TOTAL / 10));
const PROJECT = 'bench-project';
const EXPERIMENT = 'Checkout Flow';
const VARIANTS = ['control', 'treatment'];
const FIRST_DAY_MS = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;

/** Seeded PRNG (mulberry32): the same data on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

function eventLine(e: { user: string; name: string; ms: number; props: Record<string, unknown>; seq: number }): string {
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
    received_at: ts,
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

async function generate(dataDir: string): Promise<{ events: number; links: number; bytes: number }> {
  const random = prng(42);
  // Each user starts on a random day; a third of them start anonymous and log in that day
  // (identity link anon -> user, the anonymous ID being canonical as the earlier-seen one).
  const startDay = Array.from({ length: USERS }, () => Math.floor(random() * DAYS));
  const anonymous = Array.from({ length: USERS }, () => random() < 1 / 3);
  const variant = (u: number) => VARIANTS[u % VARIANTS.length]!;
  const active: number[] = [];
  const byDay: number[][] = Array.from({ length: DAYS }, () => []);
  startDay.forEach((d, u) => byDay[d]!.push(u));

  let seq = 0;
  let bytes = 0;
  let links = 0;
  const perDay = Math.floor(TOTAL / DAYS);
  for (let day = 0; day < DAYS; day++) {
    const dayMs = FIRST_DAY_MS + day * DAY_MS;
    const dt = dayOf(dayMs);
    const newcomers = byDay[day]!;
    const lines: string[] = [];
    const identity: string[] = [];
    // Newcomers: an exposure (as the anonymous ID for a third of them), and the login link.
    for (const u of newcomers) {
      const ms = dayMs + Math.floor(random() * DAY_MS * 0.5);
      const id = anonymous[u] ? `anon-${u}` : `user-${u}`;
      lines.push(eventLine({ user: id, name: '$experiment_exposure', ms, props: { $experiment_name: EXPERIMENT, $variant: variant(u) }, seq: seq++ }));
      if (anonymous[u]) {
        identity.push(
          JSON.stringify({ project_id: PROJECT, id: `user-${u}`, canonical_id: `anon-${u}`, timestamp: new Date(ms + 60_000).toISOString(), reason: 'link' }),
        );
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
        lines.push(eventLine({ user: `user-${u}`, name: 'purchase', ms, props: { amount: Math.round(random() * 10000) / 100, currency: 'EUR' }, seq: seq++ }));
      } else if (r < 0.15) {
        lines.push(eventLine({ user: `user-${u}`, name: 'add_to_cart', ms, props: { sku: `sku-${Math.floor(random() * 500)}` }, seq: seq++ }));
      } else {
        const id = anonymous[u] && random() < 0.3 ? `anon-${u}` : `user-${u}`;
        lines.push(
          eventLine({ user: id, name: 'page_view', ms, props: { path: `/p/${Math.floor(random() * 50)}`, $experiment_checkout_flow: variant(u) }, seq: seq++ }),
        );
      }
    }
    const eventsDir = join(dataDir, 'events', `project_id=${PROJECT}`, `dt=${dt}`);
    mkdirSync(eventsDir, { recursive: true });
    await writeLines(join(eventsDir, 'bench-0.ndjson'), lines);
    bytes += lines.reduce((n, l) => n + l.length + 1, 0);
    if (identity.length > 0) {
      const identitiesDir = join(dataDir, 'identities', `project_id=${PROJECT}`, `dt=${dt}`);
      mkdirSync(identitiesDir, { recursive: true });
      await writeLines(join(identitiesDir, 'bench-0.ndjson'), identity);
    }
    if ((day + 1) % 5 === 0) process.stdout.write(`  generated ${day + 1}/${DAYS} days, ${seq.toLocaleString('en')} events\n`);
  }
  return { events: seq, links, bytes };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-bench-results-'));
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const query = new DuckDbResultsQuery(dataDir);
  try {
    console.log(`Generating ${TOTAL.toLocaleString('en')} events for one experiment over ${DAYS} days in ${dataDir}`);
    const genStart = performance.now();
    const generated = await generate(dataDir);
    const genSeconds = (performance.now() - genStart) / 1000;
    console.log(
      `Generated ${generated.events.toLocaleString('en')} events (${(generated.bytes / 1e6).toFixed(0)} MB NDJSON) and ${generated.links.toLocaleString('en')} identity links in ${genSeconds.toFixed(1)} s`,
    );

    const request = (fromDay: number, days: number): CountRequest => ({
      projectId: PROJECT,
      experimentId: 'bench',
      experimentName: EXPERIMENT,
      variants: VARIANTS,
      goalEvent: 'purchase',
      from: new Date(FIRST_DAY_MS + fromDay * DAY_MS).toISOString(),
      to: new Date(FIRST_DAY_MS + (fromDay + days) * DAY_MS - 1).toISOString(),
      projectCreatedAt: new Date(FIRST_DAY_MS).toISOString(),
    });
    // A first query warms DuckDB up (instance creation, extension loading), then each window twice.
    await query.count(request(0, 1));
    const windows: Array<[string, CountRequest]> = [
      ['1 day', request(14, 1)],
      ['3 days', request(10, 3)],
      ['30 days (whole history)', request(0, DAYS)],
    ];
    const summary: string[] = [];
    console.log('\nwindow                    wall (best of 2)  rows read   enrolled (control/treatment)  converted');
    for (const [label, req] of windows) {
      let best = Infinity;
      let result = await query.count(req);
      for (let i = 0; i < 2; i++) {
        const start = performance.now();
        result = await query.count(req);
        best = Math.min(best, performance.now() - start);
      }
      const enrolled = result.variants.map((v) => v.enrolled.toLocaleString('en')).join(' / ');
      const converted = result.variants.map((v) => v.converted.toLocaleString('en')).join(' / ');
      console.log(
        `${label.padEnd(26)}${`${best.toFixed(0)} ms`.padStart(16)}  ${(result.rowsRead ?? 0).toLocaleString('en').padStart(9)}   ${enrolled.padEnd(28)}  ${converted}`,
      );
      summary.push(`${label}: ${best.toFixed(0)} ms / ${(result.rowsRead ?? 0).toLocaleString('en')} rows`);
    }
    console.log(`\nSUMMARY bench:results — ${generated.events.toLocaleString('en')} events generated in ${genSeconds.toFixed(1)} s; ${summary.join('; ')}`);
  } finally {
    await query.close();
    cleanup();
  }
}

await main();
