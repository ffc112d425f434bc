/**
 * The incremental results count (issue 13) equals the full recompute (renderResultsCount, the
 * reference) on randomized data: a seeded generator writes a few hundred users' raw events as the
 * local Firehose would deliver them (files appearing over time, each within the arrival allowance of
 * its events' arrival), identity links arriving days after the goal events they re-attribute,
 * offline events arriving days late, events stamped up to 47 h in the future, exposures in every
 * spelling, super properties, multiple exposures, and copies of events (a resend stored again after a
 * crash, a record Firehose delivered twice). The job runs every 6 hours over 6 days and once
 * more after a mid-day stop; after each run, totals, multiple exposures and every day row must equal
 * the full count of the same window over the same files, and so must the metrics (issue 22): a
 * conversion, a count, a sum of a property that is sometimes a string, a word or negative, the same
 * sum capped at its 90th percentile, and halfway through the experiment a metric added (a new
 * metric source: the state is rebuilt for the new set).
 * The whole suite runs twice: without CUPED and with a 14-day pre-exposure window
 * (docs/decisions/cuped.md), where two weeks of history before the run (some of it arriving after the
 * run started, days late) give every metric its covariate, and the covariate's sums (Σx, Σx², Σxy)
 * must equal the full count's after every run too.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDbResultsQuery } from '../../lambdas/adapters/duckdb-results-query';
import { baseDir, stateDir } from '../../lambdas/adapters/duckdb-results-state';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { addHours, landingHour } from '../../lambdas/contract/landing';
import type { StoredEvent } from '../../lambdas/domain/event';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';
import type { CountRequest, CountResult } from '../../lambdas/ports';
import { seriesInterval, type SeriesInterval } from '../../lambdas/domain/results-series';
import { storedEventFixture } from '../helpers/stored-event';
import { compactClosedHours, writeLanding } from '../helpers/landing';
import { prng } from '../../bin/prng';

const PROJECT = 'prop';
const EXPERIMENT_ID = 'exp-prop';
const START = Date.parse('2026-02-01T06:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ALLOWANCE = 10 * 60_000;
const USERS = 300;

interface Delivery {
  /** When the file appears (it lands in the hour of this time, as Firehose keys an object by its arrival). */
  at: number;
  dir: 'events' | 'identities';
  dt: string;
  lines: string[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The whole history, as files with the time each appears. */
function generate(seed: number): Delivery[] {
  const random = prng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const deliveries: Delivery[] = [];
  let seq = 0;
  const event = (user: string, name: string, ts: number, received: number, properties: Record<string, unknown> = {}) => {
    const e: StoredEvent = storedEventFixture({
      project_id: PROJECT,
      dedupe_key: `k${(seq++).toString(36)}`,
      name,
      user_id: user,
      sent_user_id: user,
      timestamp: iso(ts),
      received_at: iso(received),
      properties,
      // Breakdowns: context fields that differ between a user's events (so the first enrollment
      // event decides), missing or empty on some, more than five countries (some fold into "other").
      // From the event's number, not the generator, so the rest of the history stays as it was.
      platform: ['ios', 'android', 'web', null, ''][seq % 5] ?? null,
      country: ['US', 'DE', 'FR', 'BR', 'JP', 'IN', 'GB', null][(seq * 3) % 8] ?? null,
      app_version: ['1.0.0', '1.1.0', null][seq % 3] ?? null,
    });
    // Delivered within the allowance after arrival, in a file of the event's day.
    deliveries.push({ at: received + Math.floor(random() * (ALLOWANCE - 60_000)), dir: 'events', dt: e.timestamp.slice(0, 10), lines: [JSON.stringify(e)] });
  };
  const link = (id: string, canonical: string, at: number) =>
    deliveries.push({
      at: at + 1000,
      dir: 'identities',
      dt: iso(at).slice(0, 10),
      lines: [JSON.stringify({ project_id: PROJECT, id, canonical_id: canonical, version: '1', timestamp: iso(at), reason: 'link' })],
    });

  for (let u = 0; u < USERS; u++) {
    const anon = `anon-${u}`;
    const user = `user-${u}`;
    const first = START - 12 * HOUR + random() * 6 * DAY;
    // How an event reaches Tally: mostly at once; sometimes days late (offline), sometimes stamped ahead.
    const arrival = (ts: number): { ts: number; received: number } => {
      const r = random();
      if (r < 0.1) return { ts, received: ts + random() * 2 * DAY };
      if (r < 0.15) return { ts: ts + random() * 47 * HOUR, received: ts };
      return { ts, received: ts + random() * 5000 };
    };
    const exposures = random() < 0.15 ? 2 : 1;
    for (let i = 0; i < exposures; i++) {
      const { ts, received } = arrival(first + i * random() * DAY);
      const variant = pick(['a', 'b', 'c', 'c', 'zzz']);
      if (random() < 0.6) {
        event(random() < 0.5 ? anon : user, '$experiment_exposure', ts, received, {
          $experiment_name: pick(['Hero Banner', 'hero_banner', 'hero__banner', 'HERO BANNER']),
          $variant: variant,
        });
      } else {
        event(anon, 'page_view', ts, received, { $experiment_hero_banner: variant });
      }
    }
    const purchases = Math.floor(random() * 3);
    for (let i = 0; i < purchases; i++) {
      const { ts, received } = arrival(first + (random() - 0.2) * 3 * DAY);
      // Amounts of every kind a sum meets (a number, a numeric string, a word, a refund, an outlier),
      // chosen without drawing from the generator so the rest of the history stays as it was.
      const amount = [10, 24.5, '7.25', 'n/a', -3, 1000, 0.1][(u * 3 + i) % 7];
      event(random() < 0.7 ? user : anon, 'purchase', ts, received, { amount });
    }
    // Goal events on both sides of the enrollment on one day (only the later one converts).
    if (random() < 0.3) {
      for (const offset of [-HOUR, 2 * HOUR]) {
        const { ts, received } = arrival(first + offset);
        event(user, 'purchase', ts, received);
      }
    }
    if (random() < 0.3) {
      const { ts, received } = arrival(first + random() * DAY);
      event(anon, 'add_to_cart', ts, received);
    }
    // Logins: the link may come days after the purchases made under the user ID.
    if (random() < 0.5) link(user, anon, first + random() * 4 * DAY);
    // A few merges into another user's group (chains through the identity stream).
    if (u > 0 && random() < 0.05) link(anon, `anon-${u - 1}`, first + random() * 5 * DAY);
  }
  return deliveries.sort((x, y) => x.at - y.at);
}

/**
 * CUPED's history: each user's purchases, carts and page views in the 16 days before the run (so
 * inside and beyond a 14-day window before their enrollment), mostly delivered at once, some days late
 * (received after the run started: a late pre-exposure event), under either of the user's IDs. A
 * separate generator, so the history above is unchanged.
 */
function preRunHistory(seed: number): Delivery[] {
  const random = prng(seed);
  const deliveries: Delivery[] = [];
  for (let u = 0; u < USERS; u++) {
    const activity = random() * 4;
    for (let i = 0; i < activity; i++) {
      const ts = START - random() * 16 * DAY;
      const received = random() < 0.1 ? START + random() * 3 * DAY : ts + random() * 5000;
      const name = ['purchase', 'add_to_cart', 'page_view'][i % 3]!;
      const e = storedEventFixture({
        project_id: PROJECT,
        dedupe_key: `h${u}-${i}`,
        name,
        user_id: `${i % 2 ? 'anon' : 'user'}-${u}`,
        sent_user_id: `${i % 2 ? 'anon' : 'user'}-${u}`,
        timestamp: iso(ts),
        received_at: iso(received),
        properties: name === 'purchase' ? { amount: [12, 30.5, '4', 900][i % 4] } : {},
      });
      deliveries.push({ at: received + Math.floor(random() * (ALLOWANCE - 60_000)), dir: 'events', dt: e.timestamp.slice(0, 10), lines: [JSON.stringify(e)] });
    }
  }
  return deliveries;
}

/**
 * Copies of events, as the raw stream holds them after crashes (docs/architecture.md, "Storing a
 * batch"): a resend stored again 30 s to 2 minutes after the first copy (the claims' lease passed),
 * or days later (an offline client resending), each in a file of its own; and a few lines twice in
 * one file (Firehose delivering a record twice). A separate generator, so the history is unchanged.
 */
function withCopies(deliveries: Delivery[], seed: number): Delivery[] {
  const random = prng(seed);
  const copies: Delivery[] = [];
  for (const d of deliveries) {
    if (d.dir !== 'events') continue;
    const r = random();
    if (r < 0.03) d.lines = [...d.lines, ...d.lines];
    else if (r < 0.13) {
      const e = JSON.parse(d.lines[0]!) as StoredEvent;
      const later = Date.parse(e.received_at) + (r < 0.11 ? 30_000 + random() * 90_000 : random() * 3 * DAY);
      copies.push({ at: later + random() * (ALLOWANCE - 60_000), dir: 'events', dt: d.dt, lines: [JSON.stringify({ ...e, received_at: iso(later) })] });
    }
  }
  return [...deliveries, ...copies].sort((x, y) => x.at - y.at);
}

describe.each([{ cuped: undefined }, { cuped: 14 }] as Array<{ cuped?: number }>)(
  'incremental results count == full recompute (randomized, seeded), CUPED lookback $cuped days',
  ({ cuped }) => {
    let dataDir: string;
    let query: DuckDbResultsQuery;
    let deliveries: Delivery[];
    let written = 0;
    /** Lines of the events stream written per landing hour. */
    const landedLines = new Map<string, number>();
    /** The events stream's lines in the landing hours from..to (inclusive; to undefined: every later hour). */
    const linesIn = (from: string, to?: string) =>
      [...landedLines].filter(([hour]) => hour >= from && (to === undefined || hour <= to)).reduce((n, [, lines]) => n + lines, 0);
    /**
     * The rows an incremental run reads: the landing hours of its slice (previous watermark to the new
     * one) widened by an hour on each side, and those from an hour before the new watermark on (the
     * tail it counts from raw). Every line of those hours, whatever else the run keeps.
     */
    const expectedIncrementalRows = (run: { previousWatermark: string; watermark: string; committed: boolean }) => {
      const hour = (at: string) => landingHour(Date.parse(at));
      const slice = run.committed ? linesIn(addHours(hour(run.previousWatermark), -1), addHours(hour(run.watermark), 1)) : 0;
      return slice + linesIn(addHours(hour(run.watermark), -1));
    };

    beforeAll(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'tally-incremental-'));
      query = new DuckDbResultsQuery(dataDir, { threads: 2, arrivalAllowanceMs: ALLOWANCE });
      deliveries = withCopies(generate(20261122), 19);
      if (cuped !== undefined) deliveries = [...deliveries, ...preRunHistory(7)].sort((x, y) => x.at - y.at);
    });
    afterAll(async () => {
      await query.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** Writes every file that has appeared by `now`, in the landing hour it appeared in. */
    const deliverUntil = (now: number) => {
      for (; written < deliveries.length && deliveries[written]!.at <= now; written++) {
        const d = deliveries[written]!;
        const hour = landingHour(d.at);
        writeLanding(
          dataDir,
          d.dir,
          d.lines.map((line) => JSON.parse(line) as object),
          { hour, file: `f-${written}.ndjson` },
        );
        if (d.dir === 'events') landedLines.set(hour, (landedLines.get(hour) ?? 0) + d.lines.length);
      }
    };

    const METRICS: ExperimentMetric[] = [
      { name: 'Carts', event: 'add_to_cart', kind: 'conversion', role: 'secondary' },
      { name: 'Purchases', event: 'purchase', kind: 'count', role: 'secondary' },
      { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'guardrail', direction: 'decrease' },
      { name: 'Revenue capped', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary', cap: 0.9 },
    ];
    /** Added on day 3: a source the state has not summarised until then. */
    const ADDED: ExperimentMetric = { name: 'Views', event: 'page_view', kind: 'count', role: 'secondary', cap: 0.5 };
    /**
     * The series' interval is the product's (seriesInterval: hourly for the first 3 days) unless given:
     * the loop below also asks later runs for hourly rows, so the state's goal hours are shown exact
     * after roll-ups into the base too.
     */
    const request = (to: number, series: SeriesInterval = seriesInterval({ from: iso(START), to: iso(to) })): CountRequest => ({
      projectId: PROJECT,
      experimentId: EXPERIMENT_ID,
      experimentName: 'Hero Banner',
      variants: ['a', 'b', 'c'],
      goalEvent: 'purchase',
      from: iso(START),
      to: iso(to),
      projectCreatedAt: iso(START - 2 * DAY),
      series,
      metrics: to < START + 3 * DAY ? METRICS : [...METRICS, ADDED],
      ...(cuped !== undefined ? { cupedLookbackDays: cuped } : {}),
    });
    /** The empty state's watermark: the future clamp before the run, or before CUPED's window. */
    const emptyWatermark = iso(START - 2 * DAY - (cuped ?? 0) * DAY);
    // Sums of doubles in another order may differ in the last bits: compared to 12 significant digits.
    const digits = (x: number) => Number(x.toPrecision(12));
    const comparable = (r: CountResult) => ({
      variants: r.variants,
      multipleExposures: r.multipleExposures,
      days: [...(r.periods ?? [])].sort((x, y) => `${x.variant} ${x.period}`.localeCompare(`${y.variant} ${y.period}`)),
      metrics: r.metrics?.map((m) => ({
        ...m,
        variants: m.variants.map((v) => ({
          ...v,
          sum: digits(v.sum),
          sum_squares: digits(v.sum_squares),
          ...(v.covariate
            ? { covariate: { sum: digits(v.covariate.sum), sum_squares: digits(v.covariate.sum_squares), sum_products: digits(v.covariate.sum_products) } }
            : {}),
        })),
      })),
      segments: bySegment(r),
    });
    const bySegment = (r: CountResult) =>
      [...(r.segments ?? [])].sort((x, y) => `${x.dimension} ${x.value} ${x.variant}`.localeCompare(`${y.dimension} ${y.value} ${y.variant}`));

    it('agrees after every run, each run reading only the newly delivered files', async () => {
      let committed = 0;
      let enrolled = 0;
      let generationBefore: string | undefined;
      let hourly = 0;
      for (let now = START + 6 * HOUR, run = 0; now <= START + 6 * DAY; now += 6 * HOUR, run++) {
        deliverUntil(now);
        // Runs of 3 days and more alternate between the product's daily rows and hourly ones.
        const series = now < START + 3 * DAY || run % 2 === 0 ? 'hour' : 'day';
        const incremental = await query.countIncremental({ ...request(now, series), now: iso(now) });
        const full = await query.count(request(now, series));
        expect(comparable(incremental), iso(now)).toEqual(comparable(full));
        // Breakdowns: every enrolled user in one value of each dimension, the countries more than the
        // five shown (some fold into "other"), and users without a platform ("unknown").
        const users = full.variants.reduce((n, v) => n + v.enrolled, 0);
        for (const dimension of ['platform', 'country', 'app_version'] as const)
          expect(
            full.segments!.filter((s) => s.dimension === dimension).reduce((n, s) => n + s.users, 0),
            iso(now),
          ).toBe(users);
        if (now === START + 6 * DAY) {
          expect(new Set(full.segments!.filter((s) => s.dimension === 'country').map((s) => s.value)).size).toBeGreaterThan(6);
          expect(full.segments!.some((s) => s.dimension === 'platform' && s.value === '' && s.users > 0)).toBe(true);
        }
        if (series === 'hour') {
          hourly++;
          // Hours, and more of them than days: the series is finer, not merely renamed.
          expect(
            full.periods!.every((p) => /^\d{4}-\d{2}-\d{2}T\d{2}$/.test(p.period)),
            iso(now),
          ).toBe(true);
          expect(new Set(full.periods!.map((p) => p.period)).size, iso(now)).toBeGreaterThan(new Set(full.periods!.map((p) => p.period.slice(0, 10))).size);
        }
        expect(incremental.incremental.fullRecompute).toBe(false);
        // The raw rows read follow the new landing hours (about 6 hours' worth and an hour on each side,
        // read twice at most: the slice and the newest hours), not the window.
        // The run that adds a metric rebuilds the state for the new set of metric sources: it reads the run so far again.
        const rebuild = now === START + 3 * DAY;
        expect(incremental.incremental.previousWatermark === emptyWatermark, iso(now)).toBe(rebuild || now === START + 6 * HOUR);
        expect(incremental.rowsRead, iso(now)).toBe(expectedIncrementalRows(incremental.incremental));
        if (now >= START + 3 * DAY && !rebuild) expect(incremental.rowsRead!, iso(now)).toBeLessThan(full.rowsRead! / 2);
        // Flat state reads: the base (every closed day rolled up) plus the open day's slices (four runs
        // a day), however many days the experiment has run; the rebuild for a new set of metric sources
        // reads no base of the old set, and rolls its own up.
        expect(incremental.incremental.stateFiles!, iso(now)).toBeLessThanOrEqual(1 + 4);
        if (now >= START + DAY) expect(incremental.incremental.baseGeneration, iso(now)).toBeDefined();
        if (rebuild) expect(incremental.incremental.baseGeneration, iso(now)).not.toBe(generationBefore);
        generationBefore = incremental.incremental.baseGeneration;
        if (incremental.incremental.committed) committed++;
        enrolled = full.variants.reduce((n, v) => n + v.enrolled, 0);
      }
      expect(committed).toBe(24);
      expect(hourly).toBeGreaterThan(12);
      // The data is not degenerate: most users enrolled, some converted and some saw two variants.
      expect(enrolled).toBeGreaterThan(USERS / 2);
    });

    it('counts every metric kind from the state as the full count does, the cap below the largest values, a refund clearing the floor', async () => {
      const at = START + 6 * DAY;
      const full = await query.count(request(at));
      const incremental = await query.countIncremental({ ...request(at), now: iso(at) });
      expect(comparable(incremental)).toEqual(comparable(full));
      const [carts, purchases, revenue, capped, views] = full.metrics!;
      for (const m of [carts!, purchases!, revenue!, capped!, views!]) {
        expect(m.variants.map((v) => v.users)).toEqual(full.variants.map((v) => v.enrolled));
        expect(m.variants.every((v) => v.sum > 0)).toBe(true);
      }
      // CUPED: every metric has a covariate in every variant (pre-exposure events, before and inside the
      // run), the cap applied to it too; without CUPED none is asked for or returned.
      for (const m of [carts!, purchases!, revenue!, capped!, views!]) {
        if (cuped === undefined) expect(m.variants.every((v) => v.covariate === undefined)).toBe(true);
        else expect(m.variants.every((v) => v.covariate!.sum > 0 && v.covariate!.sum_products !== 0)).toBe(true);
      }
      if (cuped !== undefined) capped!.variants.forEach((v, i) => expect(v.covariate!.sum_squares).toBeLessThan(revenue!.variants[i]!.covariate!.sum_squares));
      // A conversion's sum is its converted users, so its squares are the same.
      expect(carts!.variants.map((v) => v.sum_squares)).toEqual(carts!.variants.map((v) => v.sum));
      // Capping at the 90th percentile lowers the outliers (1000): smaller sums and far smaller squares.
      capped!.variants.forEach((v, i) => expect(v.sum_squares).toBeLessThan(revenue!.variants[i]!.sum_squares / 2));
      expect([revenue!.values_non_negative, purchases!.values_non_negative]).toEqual([false, true]);
    });

    it('never reads a generation of the base that no commit names (a roll-up that failed before its commit)', async () => {
      const base = baseDir(dataDir, PROJECT, EXPERIMENT_ID);
      const committed = JSON.parse(readFileSync(join(base, 'commit.json'), 'utf8')) as { generation: string; metricSources: string };
      // The commit names the base's set of metric sources: the one of the metric added on day 3 included.
      expect(JSON.parse(committed.metricSources)).toContain('["page_view",null]');
      const orphan = join(base, 'generation=20260207T000000000Z-orphan');
      mkdirSync(orphan, { recursive: true });
      writeFileSync(join(orphan, 'base.parquet'), 'not Parquet: reading this fails the query');
      const now = START + 6 * DAY + 3 * HOUR;
      deliverUntil(now);
      const incremental = await query.countIncremental({ ...request(now), now: iso(now) });
      expect(incremental.incremental.baseGeneration).toBe(committed.generation);
      expect(comparable(incremental)).toEqual(comparable(await query.count(request(now))));
    });

    it('agrees after a stop in the middle of a day, with events after the stop and late arrivals before it', async () => {
      const stoppedAt = START + 6 * DAY + 7 * HOUR + 13 * 60_000 + 7;
      const later = stoppedAt + DAY;
      deliverUntil(later);
      const final = { ...request(stoppedAt), now: iso(later) };
      const incremental = await query.countIncremental(final);
      const full = await query.count(request(stoppedAt));
      expect(comparable(incremental)).toEqual(comparable(full));
      expect(incremental.incremental.watermark).toBe(iso(stoppedAt));
      expect(full.multipleExposures).toBeGreaterThan(0);
      expect(full.variants.some((v) => v.converted > 0)).toBe(true);
    });

    it('agrees after compaction: the full count from the curated partitions (plus the landing tail) equals the incremental count from landing by arrival', async () => {
      const stoppedAt = START + 6 * DAY + 7 * HOUR + 13 * 60_000 + 7;
      const later = stoppedAt + DAY;
      deliverUntil(later);
      const fromLanding = await query.count(request(stoppedAt));
      const duckdb = new InProcessDuckDb();
      try {
        // Every hour closed a quarter of an hour after it ends is curated; the last hour stays in the tail.
        const [events] = await compactClosedHours(dataDir, duckdb, later);
        expect(events).toMatchObject({ stream: 'events', compactedThrough: landingHour(later - HOUR - 15 * 60_000) });
        expect(events!.rows).toBeGreaterThan(0);
      } finally {
        await duckdb.close();
      }
      const full = await query.count(request(stoppedAt));
      expect(comparable(full)).toEqual(comparable(fromLanding));
      // From curated, the run reads the project's days of the run (and CUPED's window), not every day landed.
      expect(full.rowsRead).toBeLessThan(fromLanding.rowsRead!);
      const incremental = await query.countIncremental({ ...request(stoppedAt), now: iso(later) });
      expect(incremental.incremental).toMatchObject({ fullRecompute: false });
      expect(comparable(incremental)).toEqual(comparable(full));
    });

    it('counts from raw when the state holds events received after the run ends (a stop racing a running computation)', async () => {
      const stoppedAt = START + 3 * DAY + 5 * HOUR;
      const final = { ...request(stoppedAt), now: iso(START + 7 * DAY) };
      const incremental = await query.countIncremental(final);
      expect(incremental.incremental).toMatchObject({ fullRecompute: true, committed: false });
      expect(comparable(incremental)).toEqual(comparable(await query.count(request(stoppedAt))));
    });

    it('reads a state and base written before the breakdown columns existed (platform, country, app_version) as NULL', async () => {
      const duck = await DuckDBInstance.create(':memory:');
      const connection = await duck.connect();
      const files = [stateDir(dataDir, PROJECT, EXPERIMENT_ID), baseDir(dataDir, PROJECT, EXPERIMENT_ID)].flatMap((dir) =>
        readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile() && e.name.endsWith('.parquet') && !e.parentPath.endsWith('-orphan'))
          .map((e) => join(e.parentPath, e.name)),
      );
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        await connection.run(`COPY (SELECT * EXCLUDE (platform, country, app_version) FROM read_parquet('${file}')) TO '${file}.old' (FORMAT parquet)`);
        renameSync(`${file}.old`, file);
      }
      connection.closeSync();
      const to = START + 6 * DAY + 12 * HOUR;
      const incremental = await query.countIncremental({ ...request(to), now: iso(START + 7 * DAY) });
      const full = await query.count(request(to));
      expect(incremental.incremental).toMatchObject({ fullRecompute: false });
      expect({ ...comparable(incremental), segments: [] }).toEqual({ ...comparable(full), segments: [] });
      // Every enrolled user of the old files is in the segment "unknown" of each dimension.
      const users = full.variants.reduce((n, v) => n + v.enrolled, 0);
      for (const dimension of ['platform', 'country', 'app_version'] as const) {
        const rows = incremental.segments!.filter((s) => s.dimension === dimension);
        expect(rows.every((s) => s.value === '')).toBe(true);
        expect(rows.reduce((n, s) => n + s.users, 0)).toBe(users);
      }
    });

    it('rebuilds from raw a state written before goal rows were keyed by hour (on_day), so the hourly series stays exact', async () => {
      // Rewrite every state and base file of the experiment as the day-keyed layout wrote it.
      const duck = await DuckDBInstance.create(':memory:');
      const connection = await duck.connect();
      const files = [stateDir(dataDir, PROJECT, EXPERIMENT_ID), baseDir(dataDir, PROJECT, EXPERIMENT_ID)].flatMap((dir) =>
        readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile() && e.name.endsWith('.parquet') && !e.parentPath.endsWith('-orphan'))
          .map((e) => join(e.parentPath, e.name)),
      );
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        await connection.run(
          `COPY (SELECT * EXCLUDE (on_hour), substr(on_hour, 1, 10) AS on_day FROM read_parquet('${file}')) TO '${file}.old' (FORMAT parquet)`,
        );
        renameSync(`${file}.old`, file);
      }
      connection.closeSync();
      const to = START + 6 * DAY + 12 * HOUR;
      const incremental = await query.countIncremental({ ...request(to, 'hour'), now: iso(START + 7 * DAY) });
      expect(incremental.incremental).toMatchObject({ previousWatermark: emptyWatermark, fullRecompute: false });
      expect(comparable(incremental)).toEqual(comparable(await query.count(request(to, 'hour'))));
    });
  },
);
