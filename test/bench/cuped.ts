/**
 * npm run bench:cuped — a benchmark, not a test: prints figures, and exits non-zero only if the
 * incremental results differ from the full recompute or a figure the issue asks for is missed
 * (docs/decisions/cuped.md).
 *
 * 1. Reads per run, through the results SQL (DuckDB, the local engine). A seeded history where
 *    engagement follows each user's own habit (a per-user rate, log-normal across users, the same
 *    before and after exposure, as real engagement is): CUPED_USERS users (default 3,000) over 14 days
 *    before the experiment and CUPED_RUN_DAYS (default 14) of it, page views and purchases (with an
 *    amount), 2% of events arriving a day late; exposures spread over the run. The incremental job
 *    runs every 6 hours twice, for two experiments on the same events: CUPED on (14 days) and off.
 *    Printed per run on days 1, 7 and the last: raw rows read, state files and state bytes, with CUPED
 *    on and off; the first run of each (where the CUPED state reads its 14-day window once); the full
 *    recompute's rows; whether the incremental count equals the full recompute (covariate sums
 *    included, to 12 significant digits); and the variance reduction of each metric from the SQL's sums.
 * 2. 200 seeded A/A replays and 200 with a true effect, with the DOMAIN statistics over generated
 *    per-user values (metric-comparison.ts, the same functions the results job calls on the SQL's
 *    sums; 400 full SQL replays would take far longer and test nothing the equality above does not):
 *    the share of A/A replays the 5% test rejects (fixed-horizon and sequential), with and without
 *    CUPED, and the mean point estimate with and without CUPED against the true effect.
 */
import '../../bin/node-version';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDbResultsQuery } from '../../lambdas/adapters/duckdb-results-query';
import { landingHourDir } from '../../lambdas/adapters/duckdb-stream-views';
import { landingHour } from '../../lambdas/contract/landing';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';
import { experimentMetricResults } from '../../lambdas/domain/experiment-metric-results';
import { compareMetric } from '../../lambdas/domain/metric-comparison';
import type { MetricKind } from '../../lambdas/domain/metric-moments';
import { seriesInterval } from '../../lambdas/domain/results-series';
import type { CountRequest, CountResult } from '../../lambdas/ports';
import { goalAsMetric, splitGoalMetric } from '../../lambdas/services/count-request';
import { prng } from '../../bin/prng';

const USERS = Number(process.env.CUPED_USERS ?? 3000);
const RUN_DAYS = Number(process.env.CUPED_RUN_DAYS ?? 14);
const LOOKBACK_DAYS = 14;
const PROJECT = 'bench-cuped';
const EXPERIMENT = 'Onboarding';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const START = Date.UTC(2026, 2, 1);
const HISTORY_FROM = START - LOOKBACK_DAYS * DAY_MS;
const ALLOWANCE_MS = HOUR_MS + 5 * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Standard normal from two uniforms (Box-Muller). */
const normal = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
/** Poisson (Knuth; the rates here are small). */
function poisson(random: () => number, lambda: number): number {
  const limit = Math.exp(-lambda);
  let k = 0;
  for (let p = random(); p > limit; p *= random()) k++;
  return k;
}

/**
 * A user's habit: page views and purchases per day and the usual amount, before the run, and the same
 * habit drifted (a user's engagement changes over weeks) from the run's start on.
 */
interface Habit {
  views: number;
  purchases: number;
  amount: number;
  /** The factor on both rates from the run's start. */
  drift: number;
}
function habit(random: () => number): Habit {
  const engagement = Math.exp(0.8 * normal(random) - 0.3);
  return { views: 1.2 * engagement, purchases: 0.4 * engagement, amount: 25 * Math.exp(0.3 * normal(random)), drift: Math.exp(0.35 * normal(random) - 0.06) };
}

interface Delivery {
  at: number;
  dt: string;
  received: string;
  lines: string[];
}

// ---------------------------------------------------------------------------------------------
// 1. Reads per run through the SQL.

function history(): Delivery[] {
  const random = prng(2026);
  const files = new Map<string, Delivery>();
  let seq = 0;
  const add = (user: string, name: string, ms: number, properties: Record<string, unknown>) => {
    const received = random() < 0.02 ? ms + DAY_MS : ms + random() * 60_000;
    const at = (Math.floor(received / HOUR_MS) + 1) * HOUR_MS + 2 * 60_000;
    const dt = iso(ms).slice(0, 10);
    const key = `${dt}|${at}`;
    let file = files.get(key);
    if (!file) files.set(key, (file = { at, dt, received: landingHour(received), lines: [] }));
    file.lines.push(
      JSON.stringify({
        project_id: PROJECT,
        dedupe_key: `c-${(seq++).toString(36)}`,
        event_id: null,
        name,
        user_id: user,
        sent_user_id: user,
        timestamp: iso(ms),
        received_at: iso(received),
        properties,
        platform: 'web',
        country: 'GB',
        app_version: '1.0.0',
      }),
    );
  };
  for (let u = 0; u < USERS; u++) {
    const h = habit(random);
    const user = `u${u}`;
    const variant = u % 2 === 0 ? 'control' : 'treatment';
    // 80% of users are exposed, on a day of the run.
    const exposedAt = random() < 0.8 ? START + random() * (RUN_DAYS - 0.5) * DAY_MS : Infinity;
    for (let day = -LOOKBACK_DAYS; day < RUN_DAYS; day++) {
      const dayMs = START + day * DAY_MS;
      const drift = day < 0 ? 1 : h.drift;
      for (let i = poisson(random, h.views * drift); i > 0; i--) add(user, 'page_view', dayMs + random() * DAY_MS, {});
      for (let i = poisson(random, h.purchases * drift); i > 0; i--)
        add(user, 'purchase', dayMs + random() * DAY_MS, { amount: Math.round(h.amount * Math.exp(0.2 * normal(random)) * 100) / 100 });
    }
    if (exposedAt !== Infinity) add(user, '$experiment_exposure', exposedAt, { $experiment_name: EXPERIMENT, $variant: variant });
  }
  return [...files.values()].sort((a, b) => a.at - b.at);
}

const METRICS: ExperimentMetric[] = [
  { name: 'Page views', event: 'page_view', kind: 'count', role: 'secondary' },
  { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary' },
];

function request(experimentId: string, to: number, cuped: boolean): CountRequest {
  return {
    projectId: PROJECT,
    experimentId,
    experimentName: EXPERIMENT,
    variants: ['control', 'treatment'],
    goalEvent: 'purchase',
    from: iso(START),
    to: iso(to),
    projectCreatedAt: iso(HISTORY_FROM - 30 * DAY_MS),
    series: seriesInterval({ from: iso(START), to: iso(to) }),
    metrics: cuped ? [...METRICS, goalAsMetric({ goal_event: 'purchase' })] : METRICS,
    ...(cuped ? { cupedLookbackDays: LOOKBACK_DAYS } : {}),
  };
}

const digits = (x: number) => Number(x.toPrecision(12));
const comparable = (r: CountResult) =>
  JSON.stringify({
    variants: r.variants,
    metrics: r.metrics?.map((m) =>
      m.variants.map((v) => [
        v.users,
        digits(v.sum),
        digits(v.sum_squares),
        ...(v.covariate ? [digits(v.covariate.sum), digits(v.covariate.sum_squares), digits(v.covariate.sum_products)] : []),
      ]),
    ),
  });

async function readsPerRun(): Promise<boolean> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tally-bench-cuped-'));
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const deliveries = history();
  const events = deliveries.reduce((n, d) => n + d.lines.length, 0);
  console.log(
    `1. Reads per run: ${USERS.toLocaleString('en')} users, ${events.toLocaleString('en')} events (${LOOKBACK_DAYS} days before the run, ${RUN_DAYS} of it)`,
  );
  const query = new DuckDbResultsQuery(dataDir, { threads: 2, arrivalAllowanceMs: ALLOWANCE_MS });
  let ok = true;
  try {
    let next = 0;
    const deliverUntil = (now: number) => {
      for (; next < deliveries.length && deliveries[next]!.at <= now; next++) {
        const d = deliveries[next]!;
        const dir = landingHourDir(dataDir, 'events', d.received);
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `f-${next}.ndjson`), d.lines.join('\n') + '\n');
      }
    };
    const rows: string[][] = [];
    const checkDays = new Set([1, 7, RUN_DAYS]);
    for (let run = 1, now = START + 6 * HOUR_MS; now <= START + RUN_DAYS * DAY_MS; now += 6 * HOUR_MS, run++) {
      deliverUntil(now);
      const on = await query.countIncremental({ ...request('exp-cuped-on', now, true), now: iso(now) });
      const off = await query.countIncremental({ ...request('exp-cuped-off', now, false), now: iso(now) });
      const day = Math.ceil((now - START) / DAY_MS);
      const check = checkDays.has(day) && (now - START) % DAY_MS === 6 * HOUR_MS;
      if (run !== 1 && !check) continue;
      const line = [
        run === 1 ? 'first run' : `day ${day}`,
        (on.rowsRead ?? 0).toLocaleString('en'),
        (off.rowsRead ?? 0).toLocaleString('en'),
        `${on.incremental.stateFiles} / ${off.incremental.stateFiles}`,
        (on.incremental.stateBytes ?? 0).toLocaleString('en'),
        (off.incremental.stateBytes ?? 0).toLocaleString('en'),
      ];
      if (check) {
        const full = await query.count(request('exp-cuped-on', now, true));
        const equal = comparable(full) === comparable(on);
        ok &&= equal;
        const measured = splitGoalMetric(request('exp-cuped-on', now, true), full);
        const results = experimentMetricResults({ goal_event: 'purchase', metrics: METRICS }, full.variants, measured.metrics, {
          ...(measured.goal ? { primaryCovariates: measured.goal.variants } : {}),
        });
        const reduction = results.metrics.map((m) => `${m.name} ${m.variance_reduction === null ? '—' : `${(m.variance_reduction! * 100).toFixed(1)}%`}`);
        line.push((full.rowsRead ?? 0).toLocaleString('en'), equal ? 'equal' : 'DIFFERENT', reduction.join(', '));
        if (day === RUN_DAYS) {
          for (const m of results.metrics.slice(1)) {
            if (!(m.variance_reduction !== null && m.variance_reduction! >= 0.3)) {
              ok = false;
              console.log(`  ${m.name}: variance reduction below 30%`);
            }
          }
        }
      } else line.push('', '', '');
      rows.push(line);
    }
    const header = [
      'run',
      'raw rows read (CUPED on)',
      '(off)',
      'state files on / off',
      'state bytes (on)',
      '(off)',
      'full recompute rows',
      'incremental vs full (on)',
      'variance reduction (SQL sums)',
    ];
    console.log(`| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |`);
    for (const r of rows) console.log(`| ${r.join(' | ')} |`);
    console.log(
      `  The first run with CUPED reads the ${LOOKBACK_DAYS}-day window once into the state (its empty watermark is the window's start); later runs read the new arrivals only, on and off alike.`,
    );
  } finally {
    await query.close();
    cleanup();
  }
  return ok;
}

// ---------------------------------------------------------------------------------------------
// 2. Replays with the domain statistics over generated per-user values.

interface Sums {
  users: number;
  sum: number;
  sum_squares: number;
  covariate: { sum: number; sum_squares: number; sum_products: number };
}
const empty = (): Sums => ({ users: 0, sum: 0, sum_squares: 0, covariate: { sum: 0, sum_squares: 0, sum_products: 0 } });
function add(s: Sums, x: number, y: number): void {
  s.users++;
  s.sum += y;
  s.sum_squares += y * y;
  s.covariate.sum += x;
  s.covariate.sum_squares += x * x;
  s.covariate.sum_products += x * y;
}
const plain = ({ users, sum, sum_squares }: Sums) => ({ users, sum, sum_squares });

/** One replay: per metric (count of page views, sum of revenue) the two variants' sums; `lift` multiplies the treatment's rate after exposure. */
function replay(seed: number, users: number, lift: number): Record<'count' | 'sum', [Sums, Sums]> {
  const random = prng(seed);
  const out = { count: [empty(), empty()] as [Sums, Sums], sum: [empty(), empty()] as [Sums, Sums] };
  for (let u = 0; u < users; u++) {
    const h = habit(random);
    const treatment = random() < 0.5 ? 1 : 0;
    const boost = (treatment ? 1 + lift : 1) * h.drift;
    const views = [poisson(random, h.views * LOOKBACK_DAYS), poisson(random, h.views * boost * RUN_DAYS)];
    const revenue = [0, 0];
    for (const [i, rate] of [
      [0, h.purchases * LOOKBACK_DAYS],
      [1, h.purchases * boost * RUN_DAYS],
    ] as const)
      for (let k = poisson(random, rate); k > 0; k--) revenue[i]! += Math.round(h.amount * Math.exp(0.2 * normal(random)) * 100) / 100;
    add(out.count[treatment]!, views[0]!, views[1]!);
    add(out.sum[treatment]!, revenue[0]!, revenue[1]!);
  }
  return out;
}

function replays(): boolean {
  const N = 200;
  const users = 2000;
  console.log(
    `\n2. Replays: ${N} seeded A/A splits and ${N} with a true +5% effect, ${users.toLocaleString('en')} users each, ${LOOKBACK_DAYS} days before and ${RUN_DAYS} after exposure.`,
  );
  console.log(
    '   Statistics: the domain functions the results job runs on the SQL sums (metric-comparison.ts), over generated per-user values; not 400 full SQL replays (part 1 shows the SQL sums equal between the engines paths).',
  );
  let ok = true;
  const header = ['metric', 'test', 'A/A rejected at 5% (CUPED)', '(without)', 'mean variance reduction', 'mean estimate +5% (CUPED)', '(without)', 'true'];
  console.log(`| ${header.join(' | ')} |\n| ${header.map(() => '---').join(' | ')} |`);
  for (const kind of ['count', 'sum'] as const) {
    for (const sequential of [false, true]) {
      let rejected = 0;
      let rejectedPlain = 0;
      let reduction = 0;
      const estimates: number[] = [];
      const estimatesPlain: number[] = [];
      for (let i = 0; i < N; i++) {
        const [a, b] = replay(1000 + i, users, 0)[kind];
        const adjusted = compareMetric(kind as MetricKind, a, b, { sequential });
        const unadjusted = compareMetric(kind as MetricKind, plain(a), plain(b), { sequential });
        if (adjusted.p_value! < 0.05) rejected++;
        if (unadjusted.p_value! < 0.05) rejectedPlain++;
        const half = (x: (typeof adjusted)['ci_high']) => (x! - adjusted.difference!) ** 2;
        const halfPlain = (x: (typeof unadjusted)['ci_high']) => (x! - unadjusted.difference!) ** 2;
        reduction += 1 - half(adjusted.ci_high) / halfPlain(unadjusted.ci_high);
        const [c, t] = replay(5000 + i, users, 0.05)[kind];
        estimates.push(compareMetric(kind as MetricKind, c, t, { sequential }).relative_difference!);
        estimatesPlain.push(compareMetric(kind as MetricKind, plain(c), plain(t), { sequential }).relative_difference!);
      }
      // The mean estimate ± its standard error over the replays (the estimate's expectation).
      const meanOf = (xs: number[]) => {
        const m = xs.reduce((s, x) => s + x, 0) / xs.length;
        const se = Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1) / xs.length);
        return `${(m * 100).toFixed(2)}% ± ${(se * 100).toFixed(2)}`;
      };
      const rate = rejected / N;
      const meanReduction = reduction / N;
      console.log(
        `| ${kind} | ${sequential ? 'sequential' : 'fixed-horizon'} | ${(rate * 100).toFixed(1)}% | ${((rejectedPlain / N) * 100).toFixed(1)}% | ${(meanReduction * 100).toFixed(1)}% | ${meanOf(estimates)} | ${meanOf(estimatesPlain)} | 5.00% |`,
      );
      if (!sequential && (rate < 0.03 || rate > 0.07)) {
        ok = false;
        console.log(`  ${kind}: the A/A rejection rate is outside 3–7%`);
      }
      if (meanReduction < 0.3) {
        ok = false;
        console.log(`  ${kind}: the variance reduction is below 30%`);
      }
    }
  }
  console.log(
    '   The variance reduction here is 1 − (adjusted ÷ unadjusted interval half-width)², the variance of the difference; the sequential test is always valid, so its A/A rate is at most 5% by design.',
  );
  return ok;
}

const sqlOk = await readsPerRun();
const statsOk = replays();
if (!sqlOk || !statsOk) {
  console.log('\nFAILED: see the lines above.');
  process.exit(1);
}
