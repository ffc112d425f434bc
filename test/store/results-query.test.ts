/**
 * The experiment-results counting query (issue 6 §1): one SQL source (lambdas/adapters/sql/results-count.sql)
 * run by DuckDB locally and sent to Athena on AWS.
 *  (a) known-answer scenarios through DuckDbResultsQuery: over the real local stack (events posted to
 *      /v1/events, links made by $identify) and over NDJSON files written in the landing hours, each
 *      read from landing and again from the curated Parquet partitions after compaction;
 *  (b) the AWS path with a mocked Athena client: the query text, polling, failures, result mapping;
 *  (c) the renderer: quoting, placeholders, refusals; and the .sql file vs its TypeScript module.
 */
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type GetQueryResultsCommandOutput,
} from '@aws-sdk/client-athena';
import { DuckDBInstance } from '@duckdb/node-api';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../lambdas/domain/event';
import type { IdentityRecord } from '../../lambdas/domain/identity';
import { AthenaResultsQuery } from '../../lambdas/adapters/athena-results-query';
import { DeadlineExceeded } from '../../lambdas/domain/deadline';
import { DuckDbResultsQuery, LOCAL_TABLES } from '../../lambdas/adapters/duckdb-results-query';
import { InProcessDuckDb } from '../../lambdas/adapters/duckdb-local';
import { landingHour } from '../../lambdas/contract/landing';
import type { CountRequest } from '../../lambdas/ports';
import RESULTS_COUNT_SQL from '../../lambdas/adapters/sql/results-count.sql';
import { metricSlots, quoteLiteral, renderResultsCount, renderSql, resultsCountParams, SqlRenderError } from '../../lambdas/adapters/sql/render';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';
import { storedEventFixture } from '../helpers/stored-event';
import { compactClosedHours, writeLanding, writeLandingEvents } from '../helpers/landing';

const HOUR_MS = 3_600_000;

// ------------------------------------------------------------------------------------------------
// (a1) Through the real local stack: events posted over HTTP, identity links made by $identify.

describe('results counting through the local stack (DuckDB over the files the stack wrote)', () => {
  let stack: TestStack;
  let results: DuckDbResultsQuery;
  let project: string;
  let otherProject: string;

  beforeAll(async () => {
    stack = await startTestStack();
    results = new DuckDbResultsQuery(stack.dataDir);
    project = await stack.createProject('results');
    otherProject = await stack.createProject('other');
  });
  afterAll(async () => {
    await results?.close();
    await stack?.stop();
  });

  const exposure = (user: string, ts: string, variant: string, experiment = 'Checkout Flow') => ({
    name: '$experiment_exposure',
    user_id: user,
    timestamp: ts,
    properties: { $experiment_name: experiment, $variant: variant },
  });
  const purchase = (user: string, ts: string) => ({ name: 'purchase', user_id: user, timestamp: ts, properties: { amount: 42 } });
  const identify = (user: string, anonymous: string, ts: string) => ({
    name: '$identify',
    user_id: user,
    timestamp: ts,
    properties: { $anonymous_id: anonymous },
  });

  it('counts the issue’s scenario exactly: anonymous exposure + login + server-side purchase, early and late events', async () => {
    const web = await stack.createKey(project, UNTHROTTLED_KEY);
    const server = await stack.createKey(project, UNTHROTTLED_KEY);
    const otherKey = await stack.createKey(otherProject, UNTHROTTLED_KEY);
    const send = async (key: string, events: unknown[]) => {
      const res = await stack.post('/v1/events', key, { events });
      expect(res.status, res.text).toBe(204);
    };

    // control: anonymous exposure, then login ($identify links user-1 to anon-1, the earlier-seen and
    // so canonical ID), then a server-side purchase sent under the user ID only.
    await send(web, [exposure('anon-1', '2026-05-04T10:00:00Z', 'control')]);
    await send(web, [identify('user-1', 'anon-1', '2026-05-04T10:05:00Z')]);
    await send(server, [purchase('user-1', '2026-05-05T09:00:00Z')]);
    // control: exposed to control, then to treatment: counted in control (and in multiple exposures); converts.
    await send(web, [exposure('flip', '2026-05-04T11:00:00Z', 'control'), exposure('flip', '2026-05-05T11:00:00Z', 'treatment')]);
    await send(server, [purchase('flip', '2026-05-05T12:00:00Z')]);
    // control: the purchase is stored under another ID (a device) before that ID is linked to the user.
    await send(web, [exposure('user-10', '2026-05-04T06:00:00Z', 'control')]);
    await send(server, [purchase('device-10', '2026-05-04T07:00:00Z')]);
    await send(web, [identify('user-10', 'device-10', '2026-05-04T08:00:00Z')]);
    // control: enrolled, never buys.
    await send(web, [exposure('ctrl-idle', '2026-05-04T09:30:00Z', 'control')]);

    // treatment: converted BEFORE enrollment only: enrolled, not converted.
    await send(server, [purchase('early-buyer', '2026-05-04T08:00:00Z')]);
    await send(web, [exposure('early-buyer', '2026-05-04T09:00:00Z', 'treatment')]);
    // treatment: purchase after the stop: enrolled, not converted.
    await send(web, [exposure('late', '2026-05-06T11:00:00Z', 'treatment')]);
    await send(server, [purchase('late', '2026-05-06T13:00:00Z')]);
    // nobody: exposure (and purchase) after the stop.
    await send(web, [exposure('after-stop', '2026-05-06T13:00:00Z', 'control'), purchase('after-stop', '2026-05-06T13:30:00Z')]);
    // treatment via the super property, then converts.
    await send(web, [{ name: 'page_view', user_id: 'super', timestamp: '2026-05-04T12:00:00Z', properties: { $experiment_checkout_flow: 'treatment' } }]);
    await send(server, [purchase('super', '2026-05-04T12:30:00Z')]);
    // treatment via an exposure naming the experiment in snake_case.
    await send(web, [exposure('snake', '2026-05-05T08:00:00Z', 'treatment', 'checkout_flow')]);
    // treatment: a control exposure before the start is ignored; the run's first exposure counts.
    await send(web, [exposure('pre', '2026-05-03T23:00:00Z', 'control'), exposure('pre', '2026-05-04T01:00:00Z', 'treatment')]);
    await send(server, [purchase('pre', '2026-05-04T02:00:00Z')]);
    // nobody: exposed only before the start, buys during the run.
    await send(web, [exposure('pre-only', '2026-05-03T22:00:00Z', 'control')]);
    await send(server, [purchase('pre-only', '2026-05-04T03:00:00Z')]);
    // nobody: another experiment (exposure and super property), an unknown variant, another project.
    await send(web, [
      exposure('other-exp', '2026-05-04T10:00:00Z', 'control', 'Other Test'),
      { name: 'page_view', user_id: 'other-exp', timestamp: '2026-05-04T10:01:00Z', properties: { $experiment_other_test: 'treatment' } },
      exposure('bogus', '2026-05-04T10:00:00Z', 'bogus'),
    ]);
    await send(server, [purchase('other-exp', '2026-05-04T11:00:00Z'), purchase('bogus', '2026-05-04T11:00:00Z')]);
    await send(otherKey, [
      exposure('anon-1', '2026-05-04T10:00:00Z', 'control'),
      exposure('x', '2026-05-04T10:00:00Z', 'treatment'),
      purchase('x', '2026-05-04T11:00:00Z'),
    ]);

    const request: CountRequest = {
      projectId: project,
      experimentId: 'exp-1',
      experimentName: 'Checkout Flow',
      variants: ['control', 'treatment', 'third'],
      goalEvent: 'purchase',
      from: '2026-05-04T00:00:00Z',
      to: '2026-05-06T12:00:00Z',
      projectCreatedAt: (await stack.deps.projects.get(project))!.created_at,
    };
    const result = await results.count(request);
    expect(result.variants).toEqual([
      { variant: 'control', enrolled: 4, converted: 3 }, // anon-1/user-1, flip, user-10/device-10 convert; ctrl-idle does not
      { variant: 'treatment', enrolled: 5, converted: 2 }, // super and pre convert; early-buyer, late, snake do not
      { variant: 'third', enrolled: 0, converted: 0 },
    ]);
    expect(result.multipleExposures).toBe(1);
    // Not compacted yet, every event is in the landing tail, which holds every project's events of
    // every day: the run reads them all, each once.
    const landed = new Set(stack.rawEvents().map((e) => `${e.project_id}/${e.dedupe_key}`));
    expect(result.rowsRead).toBe(landed.size);

    // The other project's copy of the scenario counts only its own events.
    const other = await results.count({ ...request, projectId: otherProject });
    const otherVariants = [
      { variant: 'control', enrolled: 1, converted: 0 },
      { variant: 'treatment', enrolled: 1, converted: 1 },
      { variant: 'third', enrolled: 0, converted: 0 },
    ];
    expect(other.variants).toEqual(otherVariants);

    // Once the hours are compacted, the same counts from the curated partitions, reading only the
    // run's days (05-04..05-06) of this project: everything above except pre's and pre-only's 05-03 exposures.
    await stack.compaction.runNow(Date.now() + 2 * HOUR_MS);
    const inRun = stack.rawEvents(project).filter((e) => e.timestamp >= '2026-05-04' && e.timestamp < '2026-05-07');
    expect(stack.rawEvents(project).length).toBe(inRun.length + 2);
    expect(await results.count(request)).toEqual({ ...result, rowsRead: inRun.length });
    expect((await results.count({ ...request, projectId: otherProject })).variants).toEqual(otherVariants);
  });

  it('returns zeros for a project with no events and no identity links yet', async () => {
    const empty = await stack.createProject('empty');
    // Every landing hour compacted: the run reads no other project's events (an empty landing tail).
    await stack.compaction.runNow(Date.now() + 2 * HOUR_MS);
    const result = await results.count({
      projectId: empty,
      experimentId: 'e',
      experimentName: 'Checkout Flow',
      variants: ['a', 'b'],
      goalEvent: 'purchase',
      from: '2026-05-04T00:00:00Z',
      to: '2026-05-06T00:00:00Z',
      projectCreatedAt: '2026-05-01T00:00:00Z',
    });
    expect(result).toEqual({
      segments: [],
      variants: [
        { variant: 'a', enrolled: 0, converted: 0 },
        { variant: 'b', enrolled: 0, converted: 0 },
      ],
      multipleExposures: 0,
      rowsRead: 0,
    });
  });
});

// ------------------------------------------------------------------------------------------------
// (a2) Over NDJSON files written directly in the landing hours: identity edge cases, ties,
// boundaries and partition pruning; from landing, and again from the curated partitions after compaction.

const PROJECT = 'proj-main';
const FROM = '2026-03-02T00:00:00.000Z';
const TO = '2026-03-04T12:00:00.000Z';
const REQUEST: CountRequest = {
  projectId: PROJECT,
  experimentId: 'exp-files',
  experimentName: 'Button Color',
  variants: ['a', 'b'],
  goalEvent: 'signup',
  from: FROM,
  to: TO,
  // The first identity link below is of 2026-02-01: links exist from the project's creation on.
  projectCreatedAt: '2026-02-01T08:00:00.000Z',
};

interface EventSpec {
  user: string | null;
  name: string;
  ts: string;
  props?: Record<string, unknown>;
  received?: string;
  dedupe?: string;
  project?: string;
}

let seq = 0;
function storedEvent(e: EventSpec): StoredEvent {
  seq++;
  return storedEventFixture({
    project_id: e.project ?? PROJECT,
    dedupe_key: e.dedupe ?? `dk-${String(seq).padStart(6, '0')}`,
    name: e.name,
    user_id: e.user,
    sent_user_id: e.user,
    timestamp: e.ts,
    received_at: e.received ?? e.ts,
    properties: e.props ?? {},
    platform: 'web',
  });
}

/** Identity links into the identities stream's landing hours: each in the hour of its timestamp. */
function writeLinks(dataDir: string, links: IdentityRecord[], file?: string): void {
  for (const l of links) writeLanding(dataDir, 'identities', [l], { hour: landingHour(Date.parse(l.timestamp)), file });
}

/** Every landing hour closed long after the fixtures' times: compacts them all. */
const AFTER_FIXTURES_MS = Date.parse('2026-04-01T00:00:00.000Z');

const link = (id: string, canonical: string, ts = '2026-03-01T00:00:00.000Z', project = PROJECT, version = 1): IdentityRecord => ({
  project_id: project,
  id,
  canonical_id: canonical,
  version,
  timestamp: ts,
  reason: 'link',
});

const exp = (variant: unknown, experiment = 'Button Color') => ({ $experiment_name: experiment, $variant: variant });

describe.each(['landing', 'curated'] as const)('results counting over the files of the data directory (DuckDB, read from %s)', (read) => {
  let dataDir: string;
  let results: DuckDbResultsQuery;
  let duckdb: InProcessDuckDb;
  // Rows the run reads: from landing, every event of every project and day (the tail is not
  // partitioned by project or day), each once; from curated, only the run's days of the project.
  let expectedRowsRead = 0;
  let oneDayRowsRead = 0;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tally-results-'));
    const E = '$experiment_exposure';
    const specs: EventSpec[] = [
      // a: identity chain of 2 hops (c3 -> c2 -> c1): exposure under c3, goal under c1. Converts.
      { user: 'c3', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('a') },
      { user: 'c1', name: 'signup', ts: '2026-03-03T10:00:00.000Z' },
      // a: chain of 8 hops (d8 -> d7 -> ... -> d0): exposure under d8, goal under d0. Converts.
      { user: 'd8', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('a') },
      { user: 'd0', name: 'signup', ts: '2026-03-02T11:00:00.000Z' },
      // b: the latest record wins: xa pointed at ya, then at za. A goal under ya is another user's. No conversion.
      { user: 'xa', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('b') },
      { user: 'ya', name: 'signup', ts: '2026-03-02T11:00:00.000Z' },
      // b: ... and a goal under za is the same user's. Converts.
      { user: 'xb', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('b') },
      { user: 'zb', name: 'signup', ts: '2026-03-02T11:00:00.000Z' },
      // b: latest is by version (the table's commit order), not timestamp: xc's version-2 record
      // points at zc although its version-1 record has the later timestamp. Converts.
      { user: 'xc', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('b') },
      { user: 'zc', name: 'signup', ts: '2026-03-02T11:00:00.000Z' },
      // b: s pointed at t, then at itself (a root again): t's goal is not s's. No conversion.
      { user: 's', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('b') },
      { user: 't', name: 'signup', ts: '2026-03-02T11:00:00.000Z' },
      // b: two exposures at the same timestamp, written a first: b arrived first (received_at). Multiple exposure.
      { user: 'tie1', name: E, ts: '2026-03-02T15:00:00.000Z', received: '2026-03-02T15:00:02.000Z', props: exp('a') },
      { user: 'tie1', name: E, ts: '2026-03-02T15:00:00.000Z', received: '2026-03-02T15:00:01.000Z', props: exp('b') },
      // b: same timestamp and received_at: dedupe_key decides. Multiple exposure.
      { user: 'tie2', name: E, ts: '2026-03-02T15:00:00.000Z', dedupe: 'zzz', props: exp('a') },
      { user: 'tie2', name: E, ts: '2026-03-02T15:00:00.000Z', dedupe: 'aaa', props: exp('b') },
      // a: a goal at the very millisecond of enrollment converts.
      { user: 'same-ms', name: E, ts: '2026-03-02T16:00:00.000Z', props: exp('a') },
      { user: 'same-ms', name: 'signup', ts: '2026-03-02T16:00:00.000Z' },
      // a: enrolled at exactly `from` (inclusive). Another goal name does not convert.
      { user: 'at-from', name: E, ts: FROM, props: exp('a') },
      { user: 'at-from', name: 'signup_started', ts: '2026-03-02T01:00:00.000Z' },
      // b: enrolled at exactly `to` (inclusive); the goal 1 ms later is after the stop.
      { user: 'at-to', name: E, ts: TO, props: exp('b') },
      { user: 'at-to', name: 'signup', ts: '2026-03-04T12:00:00.001Z' },
      // nobody: 1 ms before `from`, 1 ms after `to`.
      { user: 'before-from', name: E, ts: '2026-03-01T23:59:59.999Z', props: exp('a') },
      { user: 'after-to', name: E, ts: '2026-03-04T12:00:00.001Z', props: exp('a') },
      // a: super property (with the snake_case key), converting later under the same ID.
      { user: 'sp', name: 'page_view', ts: '2026-03-03T09:00:00.000Z', props: { $experiment_button_color: 'a' } },
      { user: 'sp', name: 'signup', ts: '2026-03-04T09:00:00.000Z' },
      // a: then an unknown variant: not a multiple exposure (unknown variants count nowhere).
      { user: 'bogus-2nd', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('a') },
      { user: 'bogus-2nd', name: E, ts: '2026-03-02T11:00:00.000Z', props: exp('zzz') },
      // nobody: unknown variant, a $variant that is an object, no user ID, another experiment's super property.
      { user: 'bogus', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('c') },
      { user: 'nested', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp({ value: 'a' }) },
      { user: null, name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('a') },
      { user: 'other-sp', name: 'page_view', ts: '2026-03-02T10:00:00.000Z', props: { $experiment_button_colour: 'a' } },
      { user: 'other-sp', name: 'signup', ts: '2026-03-02T11:00:00.000Z' },
      // nobody: another project's events in the same data directory.
      { user: 'c1', name: E, ts: '2026-03-02T10:00:00.000Z', props: exp('a'), project: 'proj-other' },
      { user: 'c1', name: 'signup', ts: '2026-03-02T11:00:00.000Z', project: 'proj-other' },
    ];
    // History outside the run: a month of filler on other days (must not be read either).
    for (let day = 1; day <= 28; day++) {
      if (day >= 2 && day <= 4) continue;
      const dt = `2026-02-${String(day).padStart(2, '0')}`;
      for (let i = 0; i < 5; i++) specs.push({ user: `old-${i}`, name: E, ts: `${dt}T12:00:00.000Z`, props: exp('a') });
    }
    // Filler inside the run that counts nowhere (another goal name, no experiment).
    for (let i = 0; i < 10; i++) specs.push({ user: `noise-${i}`, name: 'page_view', ts: '2026-03-03T12:00:00.000Z' });

    const events = specs.map(storedEvent);
    writeLandingEvents(dataDir, events);
    expectedRowsRead =
      read === 'landing'
        ? specs.length
        : specs.filter((s) => (s.project ?? PROJECT) === PROJECT && s.ts.slice(0, 10) >= '2026-03-02' && s.ts.slice(0, 10) <= '2026-03-04').length;
    oneDayRowsRead = read === 'landing' ? specs.length : 5;

    const links: IdentityRecord[] = [
      link('c3', 'c2', '2026-03-02T09:00:00.000Z'),
      link('c2', 'c1', '2026-03-05T09:00:00.000Z'), // made after the run: still applies (current canonical ID)
      ...Array.from({ length: 8 }, (_, i) => link(`d${i + 1}`, `d${i}`, `2026-02-0${(i % 9) + 1}T00:00:00.000Z`)),
      link('xa', 'ya', '2026-02-10T00:00:00.000Z'),
      link('xa', 'za', '2026-02-11T00:00:00.000Z'),
      link('xb', 'yb', '2026-02-10T00:00:00.000Z'),
      link('xb', 'zb', '2026-02-11T00:00:00.000Z'),
      link('xc', 'yc', '2026-02-11T00:00:00.000Z', PROJECT, 1),
      link('xc', 'zc', '2026-02-10T00:00:00.000Z', PROJECT, 2),
      link('s', 't', '2026-02-10T00:00:00.000Z'),
      link('s', 's', '2026-02-11T00:00:00.000Z'),
      // Another project's link between IDs of this one: ignored (applied, it would make ya's goal xa's).
      link('ya', 'xa', '2026-02-12T00:00:00.000Z', 'proj-other'),
    ];
    // Identity links spread over many hours, two files in some.
    writeLinks(dataDir, links.slice(0, 6), 'part-0.ndjson');
    writeLinks(dataDir, links.slice(6), 'part-1.ndjson');
    duckdb = new InProcessDuckDb();
    if (read === 'curated') {
      const summary = await compactClosedHours(dataDir, duckdb, AFTER_FIXTURES_MS);
      expect(summary.map((c) => [c.stream, c.rows])).toEqual([
        ['events', specs.length],
        ['identities', links.length],
      ]);
    }
    results = new DuckDbResultsQuery(dataDir, { threads: 2 });
  });
  afterAll(async () => {
    await results?.close();
    await duckdb?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts enrollment, conversion and multiple exposures exactly', async () => {
    const result = await results.count(REQUEST);
    expect(result.variants).toEqual([
      // c3 (2-hop chain), d8 (8-hop chain), same-ms, sp convert; at-from and bogus-2nd do not.
      { variant: 'a', enrolled: 6, converted: 4 },
      // xb (latest link) and xc (latest version) convert; xa, s, tie1, tie2, at-to do not.
      { variant: 'b', enrolled: 7, converted: 2 },
    ]);
    expect(result.multipleExposures).toBe(2);
  });

  it('returns, with daily, each variant’s enrollments and first conversions per UTC day from the same query (the series’ counts)', async () => {
    const result = await results.count({ ...REQUEST, series: 'day' });
    expect(result.variants).toEqual((await results.count(REQUEST)).variants);
    const byDay = (variant: string) =>
      result
        .periods!.filter((d) => d.variant === variant)
        .sort((x, y) => x.period.localeCompare(y.period))
        .map((d) => [d.period, d.enrolled, d.converted]);
    // a: c3, d8, same-ms, at-from, bogus-2nd enroll on 03-02, d8 and same-ms convert that day; sp enrolls
    // on 03-03 and c3 (enrolled 03-02, goal under c1) converts then; sp converts on 03-04.
    expect(byDay('a')).toEqual([
      ['2026-03-02', 5, 2],
      ['2026-03-03', 1, 1],
      ['2026-03-04', 0, 1],
    ]);
    // b: xa, xb, xc, s, tie1, tie2 enroll on 03-02, xb and xc convert that day; at-to enrolls at `to`.
    expect(byDay('b')).toEqual([
      ['2026-03-02', 6, 2],
      ['2026-03-04', 1, 0],
    ]);
  });

  it('reads only the run’s day partitions of the curated events (rowsRead), whatever the history, plus the landing tail', async () => {
    const result = await results.count(REQUEST);
    expect(result.rowsRead).toBe(expectedRowsRead);
    // A one-day window reads that day only (and the landing tail).
    const oneDay = await results.count({ ...REQUEST, from: '2026-02-05T00:00:00.000Z', to: '2026-02-05T23:59:59.999Z' });
    expect(oneDay.rowsRead).toBe(oneDayRowsRead);
    expect(oneDay.variants[0]).toEqual({ variant: 'a', enrolled: 5, converted: 0 });
  });

  it('reads identity links from the day before the project’s creation on: links made before the run still resolve', async () => {
    const bounded = await results.count(REQUEST);
    // The d-chain's links (2026-02-01..08) resolve d8's exposure to d0's goal while they are read...
    expect(resultsCountParams(REQUEST).identities_from_dt).toBe('2026-01-31');
    // ...and are not read when the project is said to be newer: the bound is in the SQL both engines run.
    const later = await results.count({ ...REQUEST, projectCreatedAt: '2026-02-10T00:00:00.000Z' });
    const converted = (r: typeof bounded) => r.variants.find((v) => v.variant === 'a')!.converted;
    expect(converted(later)).toBe(converted(bounded) - 1);
  });

  it('accepts from/to in any ISO 8601 form (normalised to the stored form) and variant order of the configuration', async () => {
    const result = await results.count({ ...REQUEST, variants: ['b', 'a'], from: '2026-03-02T01:00:00+01:00', to: '2026-03-04T13:00:00+01:00' });
    expect(result.variants.map((v) => v.variant)).toEqual(['b', 'a']);
    expect(result.variants[1]).toEqual({ variant: 'a', enrolled: 6, converted: 4 });
  });

  it('handles an experiment name with a quote (rendered as a literal, matched exactly)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tally-results-quote-'));
    const q = new DuckDbResultsQuery(dir);
    try {
      const name = "Bob's \\ Test'; DROP TABLE x; --";
      writeLandingEvents(dir, [
        storedEvent({ user: 'q1', name: '$experiment_exposure', ts: '2026-03-02T10:00:00.000Z', props: exp("it's", name) }),
        storedEvent({ user: 'q1', name: "sign'up", ts: '2026-03-02T11:00:00.000Z' }),
        storedEvent({ user: 'q2', name: 'view', ts: '2026-03-02T10:00:00.000Z', props: { $experiment_bob_s_test_drop_table_x: 'plain' } }),
      ]);
      if (read === 'curated') await compactClosedHours(dir, duckdb, AFTER_FIXTURES_MS);
      const result = await q.count({ ...REQUEST, experimentName: name, variants: ["it's", 'plain'], goalEvent: "sign'up" });
      expect(result.variants).toEqual([
        { variant: "it's", enrolled: 1, converted: 1 },
        { variant: 'plain', enrolled: 1, converted: 0 },
      ]);
    } finally {
      await q.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs concurrent counts on one instance independently (per-connection views)', async () => {
    const [run, oneDay] = await Promise.all([
      results.count(REQUEST),
      results.count({ ...REQUEST, from: '2026-02-05T00:00:00.000Z', to: '2026-02-05T23:59:59.999Z' }),
    ]);
    expect(run.variants[0]).toEqual({ variant: 'a', enrolled: 6, converted: 4 });
    expect(run.rowsRead).toBe(expectedRowsRead);
    expect(oneDay.rowsRead).toBe(oneDayRowsRead);
    const lean = new DuckDbResultsQuery(dataDir, { rowsRead: false });
    try {
      expect(await lean.count(REQUEST)).toEqual({ variants: run.variants, multipleExposures: 2, segments: run.segments });
    } finally {
      await lean.close();
    }
    await expect(lean.count(REQUEST)).rejects.toThrow(/closed/);
  });

  it('refuses a project ID that would leave the data directory', async () => {
    await expect(results.count({ ...REQUEST, projectId: '../x' })).rejects.toThrow(/partition directory/);
  });
});

// ------------------------------------------------------------------------------------------------
// (b) The AWS path: Athena mocked.

describe('copies of an event in the raw files count once (DuckDB, full and incremental, before and after compaction)', () => {
  // A crash between the stream write and the commit, then the resend stored again after the
  // claims' lease: two lines with one deduplication key, the later one received 35 s after. The
  // spec's duplicate is (name, user, timestamp), so the later copy may even carry other properties
  // (another event the client sent at the same millisecond, under the same name).
  const E = '$experiment_exposure';
  const T = '2026-03-02T10:00:00.000Z';
  const LATER = '2026-03-02T10:00:35.000Z';
  const specs: EventSpec[] = [
    // a, no multiple exposure: the copy naming b was received second.
    { user: 'dup-a', name: E, ts: T, dedupe: 'dk-dup-a', props: exp('a') },
    { user: 'dup-a', name: E, ts: T, received: LATER, dedupe: 'dk-dup-a', props: exp('b') },
    // a, converts once: the goal event twice.
    { user: 'dup-goal', name: E, ts: T, props: exp('a') },
    { user: 'dup-goal', name: 'signup', ts: '2026-03-02T11:00:00.000Z', dedupe: 'dk-dup-goal' },
    { user: 'dup-goal', name: 'signup', ts: '2026-03-02T11:00:00.000Z', received: '2026-03-02T11:00:31.000Z', dedupe: 'dk-dup-goal' },
    // nobody: the first copy names no variant; the later one's super property would enroll in b.
    { user: 'dup-none', name: 'page_view', ts: T, dedupe: 'dk-dup-none' },
    { user: 'dup-none', name: 'page_view', ts: T, received: LATER, dedupe: 'dk-dup-none', props: { $experiment_button_color: 'b' } },
    // b, three identical copies (Firehose delivering twice, and a resend): enrolled once.
    ...[0, 1, 2].map((i) => ({ user: 'dup-b', name: E, ts: T, received: `2026-03-02T10:0${i}:00.000Z`, dedupe: 'dk-dup-b', props: exp('b') })),
  ];
  const expected = {
    variants: [
      { variant: 'a', enrolled: 2, converted: 1 },
      { variant: 'b', enrolled: 1, converted: 0 },
    ],
    multipleExposures: 0,
  };
  let dataDir: string;
  let results: DuckDbResultsQuery;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'tally-copies-'));
    const events = specs.map(storedEvent);
    // The later copies in a file of their own, as a later delivery would be.
    writeLandingEvents(
      dataDir,
      events.filter((_, i) => !specs[i]!.received),
      { file: 'part-0.ndjson' },
    );
    writeLandingEvents(
      dataDir,
      events.filter((_, i) => specs[i]!.received),
      { file: 'part-1.ndjson' },
    );
    results = new DuckDbResultsQuery(dataDir, { threads: 2 });
  });
  afterAll(async () => {
    await results?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('the full count reads each event once: the copy received first', async () => {
    expect(await results.count(REQUEST)).toMatchObject(expected);
    const series = (await results.count({ ...REQUEST, series: 'day' })).periods!;
    expect(series.filter((d) => d.enrolled > 0 || d.converted > 0)).toEqual([
      { variant: 'a', period: '2026-03-02', enrolled: 2, converted: 1 },
      { variant: 'b', period: '2026-03-02', enrolled: 1, converted: 0 },
    ]);
  });

  it('the incremental count agrees when the copies fall in one slice', async () => {
    const incremental = await results.countIncremental({ ...REQUEST, series: 'day', experimentId: 'exp-copies', now: '2026-03-05T00:00:00.000Z' });
    expect(incremental).toMatchObject(expected);
    expect(incremental.incremental).toMatchObject({ committed: true, fullRecompute: false });
  });

  it('after compaction, the full count from the curated partitions agrees (the copies collapsed to the first received), and so does the incremental count', async () => {
    // Five events: dup-a, dup-goal's exposure, its goal, dup-none, dup-b.
    const distinct = new Set(specs.map((s) => s.dedupe ?? s.user)).size;
    expect(distinct).toBe(5);
    const duckdb = new InProcessDuckDb();
    try {
      const [events] = await compactClosedHours(dataDir, duckdb, AFTER_FIXTURES_MS);
      expect(events).toMatchObject({ stream: 'events', rows: distinct });
    } finally {
      await duckdb.close();
    }
    const full = await results.count({ ...REQUEST, series: 'day' });
    expect(full).toMatchObject({ ...expected, rowsRead: distinct });
    const incremental = await results.countIncremental({ ...REQUEST, series: 'day', experimentId: 'exp-copies', now: '2026-03-05T00:00:00.000Z' });
    expect(incremental).toMatchObject(expected);
    expect(incremental.periods).toEqual(full.periods);
  });
});

describe('AthenaResultsQuery (mocked Athena)', () => {
  const athena = mockClient(AthenaClient);
  beforeEach(() => athena.reset());
  const client = () => new AthenaClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  const header = { Data: [{ VarCharValue: 'variant' }, { VarCharValue: 'enrolled' }, { VarCharValue: 'converted' }, { VarCharValue: 'multiple_exposures' }] };
  const row = (...values: string[]) => ({ Data: values.map((v) => ({ VarCharValue: v })) });
  const metadata = { ColumnInfo: ['variant', 'enrolled', 'converted', 'multiple_exposures'].map((Name) => ({ Name, Type: 'varchar' })) };
  const state = (State: string, extra: Record<string, unknown> = {}) => ({
    QueryExecution: { QueryExecutionId: 'q-1', Status: { State, ...extra }, Statistics: { DataScannedInBytes: 123_456 } },
  });

  it('sends the rendered Trino query (partition filters, Glue tables, no DuckDB syntax), polls, and maps paginated results', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena
      .on(GetQueryExecutionCommand)
      .resolvesOnce(state('QUEUED') as never)
      .resolvesOnce(state('RUNNING') as never)
      .resolves(state('SUCCEEDED') as never);
    athena
      .on(GetQueryResultsCommand)
      .resolvesOnce({
        ResultSet: { ResultSetMetadata: metadata, Rows: [header, row('a', '10', '4', '2')] },
        NextToken: 'page-2',
      } as GetQueryResultsCommandOutput)
      .resolvesOnce({ ResultSet: { ResultSetMetadata: metadata, Rows: [row('b', '12', '7', '2')] } } as GetQueryResultsCommandOutput);

    const query = new AthenaResultsQuery(client(), { workGroup: 'tally-analysts', pollMs: 1 });
    const result = await query.count({ ...REQUEST, variants: ['a', 'b', 'c'] });
    expect(result).toEqual({
      segments: [],
      variants: [
        { variant: 'a', enrolled: 10, converted: 4 },
        { variant: 'b', enrolled: 12, converted: 7 },
        { variant: 'c', enrolled: 0, converted: 0 },
      ],
      multipleExposures: 2,
      bytesScanned: 123_456,
    });

    const start = athena.commandCalls(StartQueryExecutionCommand);
    expect(start).toHaveLength(1);
    const input = start[0]!.args[0].input;
    expect(input.WorkGroup).toBe('tally-analysts');
    expect(input.QueryExecutionContext).toEqual({ Database: 'tally' });
    const sql = input.QueryString!;
    // describe() reports exactly the text sent (the results response's `computation`).
    expect(query.describe({ ...REQUEST, variants: ['a', 'b', 'c'] })).toEqual({ engine: 'athena', query: sql });
    expect(sql).toContain('FROM tally.events');
    expect(sql).toContain('FROM tally.identities');
    expect(sql).toMatch(
      /WHERE project_id = 'proj-main'\s+AND dt BETWEEN '2026-03-02' AND '2026-03-04'\s+AND "timestamp" BETWEEN '2026-03-02T00:00:00.000Z' AND '2026-03-04T12:00:00.000Z'/,
    );
    expect(sql).toContain(`json_extract_scalar(properties, '$["$experiment_button_color"]')`);
    expect(sql).toContain(`IN ('Button Color', 'button_color', 'button__color')`);
    expect(sql).toContain(`json_extract_scalar(properties, '$["$experiment_button__color"]')`);
    expect(sql).toContain(`json_extract_scalar(properties, '$["$experiment_Button Color"]')`);
    expect(sql).toContain(`ARRAY['a', 'b', 'c']`);
    // Identity links: every day of the project, from the day before its creation (not 2,200 projected days).
    expect(sql).toMatch(/FROM tally\.identities\s+WHERE project_id = 'proj-main'\s+AND dt >= '2026-01-31'\s*\)/);
    for (const duckOnly of ['->>', '::', 'read_json', 'json_extract_string', 'arg_min', 'tally_events', '{{', 'WITH RECURSIVE', '--']) {
      expect(sql, duckOnly).not.toContain(duckOnly);
    }
    expect(sql).not.toMatch(/:[a-z_]+/); // no unrendered placeholder
    expect(athena.commandCalls(GetQueryExecutionCommand)).toHaveLength(3);
    expect(athena.commandCalls(GetQueryResultsCommand).map((c) => c.args[0].input.NextToken)).toEqual([undefined, 'page-2']);
  });

  it('sends the same text DuckDB runs, but for the table names', async () => {
    const query = new AthenaResultsQuery(client(), { workGroup: 'w', database: 'tally' });
    const local = renderResultsCount(REQUEST, LOCAL_TABLES);
    expect(query.sql(REQUEST)).toBe(local.replace(/\bevents\b(?!_)/g, 'tally.events').replace(/\bidentities\b/g, 'tally.identities'));
    const custom = new AthenaResultsQuery(client(), { workGroup: 'w', database: 'analytics', eventsTable: 'raw_events', identitiesTable: 'other.links' });
    expect(custom.sql(REQUEST)).toContain('FROM analytics.raw_events');
    expect(custom.sql(REQUEST)).toContain('FROM other.links');
  });

  it('throws a clear error when the query fails or is cancelled', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('FAILED', { StateChangeReason: "TABLE_NOT_FOUND: Table 'tally.identities' does not exist" }) as never);
    const query = new AthenaResultsQuery(client(), { workGroup: 'w', pollMs: 1 });
    await expect(query.count(REQUEST)).rejects.toThrow("Athena results query q-1 FAILED: TABLE_NOT_FOUND: Table 'tally.identities' does not exist");
    athena.on(GetQueryExecutionCommand).resolves(state('CANCELLED') as never);
    await expect(query.count(REQUEST)).rejects.toThrow(/q-1 CANCELLED/);
    expect(athena.commandCalls(GetQueryResultsCommand)).toHaveLength(0);
  });

  it('stops the query and throws when it runs past maxWaitMs, polling with backoff', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('RUNNING') as never);
    athena.on(StopQueryExecutionCommand).resolves({});
    const query = new AthenaResultsQuery(client(), { workGroup: 'w', pollMs: 5, maxWaitMs: 100 });
    const started = Date.now();
    await expect(query.count(REQUEST)).rejects.toThrow(/did not finish within 100 ms \(last state RUNNING\); it was stopped/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    // Delays 5, 10, 20, 40, then the remaining ~25 ms: about 6 polls, not 20.
    const polls = athena.commandCalls(GetQueryExecutionCommand).length;
    expect(polls).toBeGreaterThanOrEqual(4);
    expect(polls).toBeLessThanOrEqual(8);
    expect(athena.commandCalls(StopQueryExecutionCommand)[0]!.args[0].input).toEqual({ QueryExecutionId: 'q-1' });
  });

  it('stops waiting at the caller’s deadline, well before its own maxWaitMs, and never starts a query past it', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('RUNNING') as never);
    athena.on(StopQueryExecutionCommand).resolves({});
    const query = new AthenaResultsQuery(client(), { workGroup: 'w', pollMs: 5, maxWaitMs: 60_000 });
    const started = Date.now();
    await expect(query.count(REQUEST, { deadlineMs: started + 80 })).rejects.toBeInstanceOf(DeadlineExceeded);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(athena.commandCalls(StopQueryExecutionCommand)[0]!.args[0].input).toEqual({ QueryExecutionId: 'q-1' });
    await expect(query.count(REQUEST, { deadlineMs: Date.now() - 1 })).rejects.toBeInstanceOf(DeadlineExceeded);
    expect(athena.commandCalls(StartQueryExecutionCommand)).toHaveLength(1);
  });

  it('maps period rows (period set: a day, or an hour YYYY-MM-DDTHH) to periods when asked, totals rows to variants', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('SUCCEEDED') as never);
    const columns = ['variant', 'period', 'enrolled', 'converted', 'multiple_exposures'];
    const dayMetadata = { ColumnInfo: columns.map((Name) => ({ Name, Type: 'varchar' })) };
    const nullDay = (variant: string, ...values: string[]) => ({ Data: [{ VarCharValue: variant }, {}, ...values.map((v) => ({ VarCharValue: v }))] });
    athena.on(GetQueryResultsCommand).resolves({
      ResultSet: {
        ResultSetMetadata: dayMetadata,
        Rows: [
          { Data: columns.map((c) => ({ VarCharValue: c })) },
          nullDay('a', '3', '1', '0'),
          row('a', '2026-03-02', '2', '0', '0'),
          row('a', '2026-03-03T07', '1', '1', '0'),
          nullDay('b', '0', '0', '0'),
        ],
      },
    } as GetQueryResultsCommandOutput);
    const query = new AthenaResultsQuery(client(), { workGroup: 'w', pollMs: 1 });
    const result = await query.count({ ...REQUEST, series: 'day' });
    expect(result.variants).toEqual([
      { variant: 'a', enrolled: 3, converted: 1 },
      { variant: 'b', enrolled: 0, converted: 0 },
    ]);
    expect(result.periods).toEqual([
      { variant: 'a', period: '2026-03-02', enrolled: 2, converted: 0 },
      { variant: 'a', period: '2026-03-03T07', enrolled: 1, converted: 1 },
    ]);
    expect((await query.count(REQUEST)).periods).toBeUndefined();
  });

  it('maps metric rows (Athena returns every value as text) to metrics in the request order, zeros for a variant without rows', async () => {
    const metrics: ExperimentMetric[] = [
      { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'guardrail', direction: 'decrease', cap: 0.9 },
      { name: 'Carts', event: 'add_to_cart', kind: 'conversion', role: 'secondary' },
    ];
    const [, revenue, carts] = metricSlots(metrics);
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('SUCCEEDED') as never);
    const columns = ['variant', 'period', 'metric', 'enrolled', 'converted', 'multiple_exposures', 'metric_sum', 'metric_sum_squares', 'metric_min'];
    const line = (...values: Array<string | undefined>) => ({ Data: values.map((v) => (v === undefined ? {} : { VarCharValue: v })) });
    athena.on(GetQueryResultsCommand).resolves({
      ResultSet: {
        ResultSetMetadata: { ColumnInfo: columns.map((Name) => ({ Name, Type: 'varchar' })) },
        Rows: [
          { Data: columns.map((c) => ({ VarCharValue: c })) },
          line('a', undefined, '[]', '3', '1', '0', undefined, undefined, undefined),
          line('a', undefined, carts, '3', '0', '0', '2.0', '2.0', '1.0'),
          line('a', undefined, revenue, '3', '0', '0', '12.5', '100.25', '-2.5'),
          line('b', undefined, '[]', '2', '0', '0', undefined, undefined, undefined),
          line('b', undefined, revenue, '2', '0', '0', '0.0', '0.0', undefined),
        ],
      },
    } as GetQueryResultsCommandOutput);
    const query = new AthenaResultsQuery(client(), { workGroup: 'w', pollMs: 1 });
    const result = await query.count({ ...REQUEST, metrics });
    expect(result.variants).toEqual([
      { variant: 'a', enrolled: 3, converted: 1 },
      { variant: 'b', enrolled: 2, converted: 0 },
    ]);
    expect(result.metrics).toEqual([
      {
        name: 'Revenue',
        variants: [
          { variant: 'a', users: 3, sum: 12.5, sum_squares: 100.25 },
          { variant: 'b', users: 2, sum: 0, sum_squares: 0 },
        ],
        values_non_negative: false,
      },
      {
        name: 'Carts',
        variants: [
          { variant: 'a', users: 3, sum: 2, sum_squares: 2 },
          { variant: 'b', users: 0, sum: 0, sum_squares: 0 },
        ],
        values_non_negative: true,
      },
    ]);
    // The query text fans the one scan out to the metrics' slots, in the Trino dialect.
    const sql = athena.commandCalls(StartQueryExecutionCommand).at(-1)!.args[0].input.QueryString!;
    expect(sql).toContain(`FROM UNNEST(ARRAY['[]', '${revenue}', '${carts}']) AS slots (metric)`);
    expect(sql).toContain(`regexp_like(json_extract_scalar(properties, property_path), '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$')`);
  });

  it('rejects malformed counts from the result set', async () => {
    athena.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: 'q-1' });
    athena.on(GetQueryExecutionCommand).resolves(state('SUCCEEDED') as never);
    athena
      .on(GetQueryResultsCommand)
      .resolves({ ResultSet: { ResultSetMetadata: metadata, Rows: [header, row('a', 'lots', '1', '0')] } } as GetQueryResultsCommandOutput);
    await expect(new AthenaResultsQuery(client(), { workGroup: 'w', pollMs: 1 }).count(REQUEST)).rejects.toThrow(/bad enrolled: lots/);
  });
});

// ------------------------------------------------------------------------------------------------
// (c) The renderer, and the one query source.

describe('SQL rendering', () => {
  let duck: DuckDBInstance;
  beforeAll(async () => {
    duck = await DuckDBInstance.create(':memory:');
  });
  afterAll(() => duck?.closeSync());
  const roundTrip = async (value: string) => {
    const connection = await duck.connect();
    try {
      const rows = (await connection.runAndReadAll(renderSql('SELECT :v AS v', { v: value }, {}))).getRowObjectsJS();
      return rows[0]!.v;
    } finally {
      connection.closeSync();
    }
  };

  it('quotes literals by doubling single quotes; the value round-trips exactly through a real engine', async () => {
    expect(quoteLiteral("O'Brien")).toBe("'O''Brien'");
    expect(renderSql('SELECT * FROM t WHERE a = :a', { a: "x' OR '1'='1" }, {})).toBe("SELECT * FROM t WHERE a = 'x'' OR ''1''=''1'");
    for (const value of ["O'Brien", "x'; DROP TABLE t; --", "back\\slash \\' \\n", 'multi\nline', '"double" $1 ${x} :name {{t}}', 'ünïcødé 🙂', '', "''"]) {
      expect(await roundTrip(value)).toBe(value);
    }
  });

  it('renders lists and table references', () => {
    expect(renderSql('SELECT * FROM {{t}} WHERE v IN (:vs)', { vs: ['a', "b'"] }, { t: 'tally.events' })).toBe(
      "SELECT * FROM tally.events WHERE v IN ('a', 'b''')",
    );
  });

  it('leaves placeholders inside literals, quoted identifiers and comments alone and drops comments', () => {
    const sql = '-- header :nope {{nope}}\nSELECT \':lit\', "col:x", /* :c */ :a -- :trailing\n\n';
    expect(renderSql(sql, { a: 'v' }, {})).toBe("SELECT ':lit', \"col:x\",   'v'");
  });

  it('refuses what it cannot render safely', () => {
    const bad: Array<[string, Record<string, string | string[]>, Record<string, string>, RegExp]> = [
      ['SELECT :a', { a: 'nul\u0000byte' }, {}, /NUL/],
      ['SELECT :a', { a: 'lone \uD800 surrogate' }, {}, /surrogate/],
      ['SELECT :a', {}, {}, /No value given for :a/],
      ['SELECT 1', { a: 'x' }, {}, /not in the SQL: :a/],
      ['SELECT x::int', { x: 'x' }, {}, /::/],
      ['SELECT * FROM {{t}}', {}, { t: 'tally.events; DROP TABLE x' }, /Table reference/],
      ['SELECT * FROM {{t}}', {}, { t: '"quoted"' }, /Table reference/],
      ['SELECT * FROM {{t}}', {}, {}, /No table given/],
      ['SELECT 1', {}, { t: 'x' }, /Tables not in the SQL/],
      ['SELECT :a IN (:vs)', { a: 'x', vs: [] }, {}, /non-empty/],
      ["SELECT 'open", {}, {}, /Unterminated/],
    ];
    for (const [sql, params, tables, error] of bad) {
      expect(() => renderSql(sql, params, tables), sql).toThrow(SqlRenderError);
      expect(() => renderSql(sql, params, tables), sql).toThrow(error);
    }
    expect(() => renderResultsCount({ ...REQUEST, from: 'yesterday' }, LOCAL_TABLES)).toThrow(/from is not an ISO 8601 time/);
  });

  it('imports results-count.sql as its exact text (the .sql text loader)', () => {
    const sql = readFileSync(new URL('../../lambdas/adapters/sql/results-count.sql', import.meta.url), 'utf8');
    expect(RESULTS_COUNT_SQL).toBe(sql);
  });
});
