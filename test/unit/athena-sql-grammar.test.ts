/**
 * Every SQL text Tally sends to Athena parses with Trino's grammar (Athena engine 3;
 * docs/decisions/one-query-source.md, "Grammar check"). DuckDB runs the same texts locally and accepts
 * syntax Trino refuses, so the local tests alone cannot tell.
 *
 * The texts are the ones the AWS adapters send: each adapter runs against a mocked Athena (and S3 for
 * the results base) with the Glue table names the Lambdas use, and every StartQueryExecution's
 * QueryString is captured. The scenarios cover every query and every option that changes a text: the
 * results count (full, incremental with and without a base, the state INSERT, its commit, the
 * watermark, the base roll-up with and without a previous generation), the insight kinds of the
 * registry with each interval, measure, breakdown, comparison, funnel filter and retention interval,
 * the listings (filters, search, next page, the candidates and the full recent-events query), the
 * planning baseline, the analyst views' DDL and the smoke test's counts (events, and a person's events left after a deletion). A module that starts Athena
 * queries and is not driven here fails the last test.
 */
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  type GetQueryResultsCommandOutput,
} from '@aws-sdk/client-athena';
import { GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AthenaAnalyticsViews } from '../../lambdas/adapters/athena-analytics-views';
import { AthenaCompactionStore } from '../../lambdas/adapters/athena-compaction';
import { AthenaInsightEngine } from '../../lambdas/adapters/athena-insights';
import { AthenaPlanningBaselines } from '../../lambdas/adapters/athena-planning-baseline';
import { AthenaRecentEvents } from '../../lambdas/adapters/athena-recent-events';
import { AthenaRecentUsers } from '../../lambdas/adapters/athena-recent-users';
import { AthenaResultsQuery } from '../../lambdas/adapters/athena-results-query';
import { S3ResultsBase } from '../../lambdas/adapters/s3-results-base';
import { metricSourceSet } from '../../lambdas/adapters/sql/render';
import { FUNNEL_BREAKDOWNS } from '../../lambdas/domain/insights/funnels-definition';
import { INSIGHT_KIND_NAMES, INSIGHT_KINDS, type InsightKindName } from '../../lambdas/domain/insights/kinds';
import { RETENTION_INTERVALS } from '../../lambdas/domain/insights/retention-definition';
import { TREND_BREAKDOWNS, TREND_INTERVALS, TREND_MEASURES } from '../../lambdas/domain/insights/trends-definition';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';
import type { CountRequest } from '../../lambdas/ports';
import { athenaRawEvents } from '../../bin/smoke/raw-stream';
import { tableReads, trinoSyntaxErrors } from '../helpers/trino-grammar';

/** The Glue database of the stack Tally (lib/tally-stack.ts glueDatabaseNameFor), as ATHENA_DATABASE gives it. */
const DATABASE = 'tally';
const WORKGROUP = 'tally';
const ROOT = join(import.meta.dirname, '../..');

const REQUEST: CountRequest = {
  projectId: 'proj-main',
  experimentId: 'exp-1',
  // Client text with a quote: every literal is escaped.
  experimentName: "Button's Color",
  variants: ['a', 'b', "it's"],
  goalEvent: 'signup',
  from: '2026-03-02T00:00:00.000Z',
  to: '2026-03-20T12:00:00.000Z',
  projectCreatedAt: '2026-02-01T08:00:00.000Z',
  series: 'day',
};
const METRICS: ExperimentMetric[] = [
  { name: 'Orders', event: 'purchase', kind: 'count', role: 'secondary' },
  { name: 'Revenue', event: 'purchase', kind: 'sum', property: "buyer's amount", role: 'guardrail', direction: 'decrease', cap: 0.99 },
  { name: 'Buyers', event: 'purchase', kind: 'conversion', role: 'secondary' },
];
const RUN = { ...REQUEST, now: '2026-03-20T12:15:00.000Z' };
/** A committed base of METRICS' sources whose boundary is a closed day behind the stored watermark, so a run rolls the next day up. */
const BASE_COMMIT = {
  generation: '20260319T020000000Z-old',
  boundaryDt: '2026-03-19',
  watermark: '2026-03-19T01:35:00.000Z',
  committedAt: '2026-03-19T02:00:10.000Z',
  metricSources: metricSourceSet(METRICS),
};
const STORED_WATERMARK = '2026-03-20T10:50:00.000Z';

const athena = mockClient(AthenaClient);
const s3 = mockClient(S3Client);
const credentials = { accessKeyId: 'x', secretAccessKey: 'y' };
const athenaClient = () => new AthenaClient({ region: 'eu-west-1', credentials });

/** Every QueryString sent, in order. */
let sent: string[] = [];

function table(names: string[], rows: Array<Array<string | null>>): GetQueryResultsCommandOutput {
  return {
    ResultSet: {
      ResultSetMetadata: { ColumnInfo: names.map((Name) => ({ Name, Type: 'varchar' })) },
      Rows: [names, ...rows].map((r) => ({ Data: r.map((v) => (v === null ? {} : { VarCharValue: v })) })),
    },
    $metadata: {},
  };
}

/**
 * Athena: every query succeeds; the watermark query returns STORED_WATERMARK, the first recent-events
 * query one row of many candidates (so the listing runs its second query), the rest no rows.
 */
function serveAthena() {
  athena.on(StartQueryExecutionCommand).callsFake((input: { QueryString: string }) => ({ QueryExecutionId: `q-${sent.push(input.QueryString)}` }));
  athena.on(GetQueryExecutionCommand).callsFake((input: { QueryExecutionId: string }) => ({
    QueryExecution: {
      QueryExecutionId: input.QueryExecutionId,
      Status: { State: 'SUCCEEDED' },
      // An UNLOAD's data manifest (empty: it wrote no file here; serveS3).
      Statistics: { DataScannedInBytes: 0, DataManifestLocation: `s3://results/${input.QueryExecutionId}-manifest.csv` },
      ResultConfiguration: { OutputLocation: `s3://results/${input.QueryExecutionId}.csv` },
    },
  }));
  athena.on(GetQueryResultsCommand).callsFake((input: { QueryExecutionId: string }) => {
    const sql = sent[Number(input.QueryExecutionId.slice(2)) - 1]!;
    if (sql.startsWith('SELECT max(slice_hi)')) return table(['watermark'], [[STORED_WATERMARK]]);
    if (/LIMIT \d+\n\s*\) matching/.test(sql)) return table(['properties', 'candidates'], [['{}', '1000']]);
    return table([], []);
  });
}

/** S3: the results base's commit (BASE_COMMIT when `committed`), its generations, the writes, and empty UNLOAD manifests. */
function serveS3(committed: boolean) {
  s3.reset();
  s3.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    if (input.Key.endsWith('-manifest.csv')) return { Body: { transformToString: async () => '' } };
    if (!committed) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
    return { Body: { transformToString: async () => JSON.stringify(BASE_COMMIT) } };
  });
  s3.on(PutObjectCommand).resolves({});
  s3.on(ListObjectsV2Command).resolves({});
}

const resultsQuery = (withBase: boolean) =>
  new AthenaResultsQuery(athenaClient(), {
    workGroup: WORKGROUP,
    database: DATABASE,
    pollMs: 1,
    ...(withBase ? { base: new S3ResultsBase(new S3Client({ region: 'eu-west-1', credentials }), 'raw-bucket') } : {}),
  });

/** Definitions of each insight kind (the registry's): together they take every option that changes the text. */
const DEFINITIONS: { [K in InsightKindName]: object[] } = {
  trends: TREND_INTERVALS.flatMap((interval, i) =>
    [undefined, ...TREND_BREAKDOWNS].map((breakdown, j) => ({
      series: [
        { event: "o'clock", measure: 'events' },
        { event: 'purchase', measure: 'sum', property: "buyer's amount" },
        { event: 'purchase', measure: 'average', property: "[*]..$'*" },
        { event: 'signup', measure: 'users' },
      ],
      interval,
      date_from: '2026-03-01',
      date_to: '2026-03-20',
      ...(breakdown ? { breakdown } : {}),
      ...(breakdown === 'property' ? { breakdown_property: "plan's tier" } : {}),
      compare: (i + j) % 2 === 0,
    })),
  ),
  funnels: [undefined, ...FUNNEL_BREAKDOWNS].map((breakdown, i) => ({
    steps: [
      { event: 'view', where: { property: 'page', equals: "it's /pricing" } },
      { event: "o'clock" },
      { event: 'purchase', where: { property: 'plan', equals: '' } },
    ].slice(0, i % 2 === 0 ? 3 : 2),
    ...(i % 2 === 0 ? { conversion_window_days: 7 } : {}),
    date_from: '2026-03-01',
    date_to: '2026-03-20',
    ...(breakdown ? { breakdown } : {}),
    ...(breakdown === 'property' ? { breakdown_property: "plan's tier" } : {}),
  })),
  retention: RETENTION_INTERVALS.flatMap((interval) => [
    { start_event: 'signup', return_event: "o'clock", interval, date_from: '2026-03-01', date_to: '2026-03-20' },
    { start_event: 'signup', return_event: 'signup', interval, date_from: '2026-02-01', date_to: '2026-03-20' },
  ]),
};

/**
 * Each module that sends SQL to Athena (its path) and a run of it through every text it can send.
 * The AthenaResultsQuery-based adapters send through AthenaResultsQuery.run, as the Lambdas wire them.
 */
const SOURCES: Record<string, () => Promise<void>> = {
  'lambdas/adapters/athena-results-query.ts': async () => {
    await resultsQuery(false).count(REQUEST);
    await resultsQuery(false).count({ ...REQUEST, series: 'hour', metrics: METRICS });
    const { series: _series, ...noSeries } = REQUEST;
    await resultsQuery(false).count(noSeries);
    // Without a base store: watermark, state INSERT, commit, the count with no base.
    await resultsQuery(false).countIncremental({ ...RUN, metrics: METRICS });
    // The first roll-up (no previous generation), then one over a committed base.
    serveS3(false);
    await resultsQuery(true).countIncremental(RUN);
    serveS3(true);
    await resultsQuery(true).countIncremental({ ...RUN, metrics: METRICS, series: 'hour' });
  },
  'lambdas/adapters/athena-insights.ts': async () => {
    const engine = new AthenaInsightEngine(athenaClient(), { workGroup: WORKGROUP, database: DATABASE, arrivalAllowanceMs: 25 * 60_000 });
    // A zone whose local days span two UTC days and whose hours start at half past (UTC differs only in the zone's literal).
    const context = { projectId: 'proj-main', projectCreatedAt: '2026-02-01T08:00:00.000Z', dataThrough: '2026-03-20T11:50:00.000Z', timeZone: 'Asia/Kolkata' };
    for (const kind of INSIGHT_KIND_NAMES) {
      for (const [i, definition] of DEFINITIONS[kind].entries()) {
        const query = engine.prepare(kind, INSIGHT_KINDS[kind].definition.parse(definition), context);
        await engine.start(query, `${kind}-${i}`);
      }
    }
  },
  'lambdas/adapters/athena-recent-events.ts': async () => {
    const listing = new AthenaRecentEvents(resultsQuery(false), { windowDays: 7, maxWaitMs: 60_000 });
    const now = Date.parse('2026-03-20T12:00:00.000Z');
    // Athena answers each query over the newest candidates with one event of 1000 candidates, so a listing asking for more than one event runs again over every matching row.
    for (const filter of [{ limit: 50 }, { limit: 50, userId: "o'brien" }, { limit: 1, name: "o'clock" }, { limit: 10, userId: 'u-1', name: 'signup' }]) {
      await listing.recent('proj-main', filter, now);
    }
    // The event names of the same window.
    await listing.names("o'clock", 1000, now);
    // The property names of the latest days of that window.
    await listing.propertyNames("o'clock", 1000, now);
  },
  'lambdas/adapters/athena-recent-users.ts': async () => {
    const listing = new AthenaRecentUsers(resultsQuery(false), { windowDays: 7, maxWaitMs: 60_000 });
    const now = Date.parse('2026-03-20T12:00:00.000Z');
    for (const filter of [
      { limit: 50 },
      { limit: 50, search: "O'Brien 100%_" },
      { limit: 20, after: { last_seen: '2026-03-19T10:00:00.000Z', user_id: "o'brien" } },
      { limit: 20, search: 'ann', after: { last_seen: '2026-03-19T10:00:00.000Z', user_id: 'u-1' } },
    ]) {
      await listing.recent('proj-main', filter, now);
    }
  },
  'lambdas/adapters/athena-planning-baseline.ts': async () => {
    const baselines = new AthenaPlanningBaselines(resultsQuery(false), { maxWaitMs: 60_000 });
    const request = {
      projectId: 'proj-main',
      projectCreatedAt: '2026-02-01T08:00:00.000Z',
      event: "o'clock",
      from: '2026-02-18T00:00:00.000Z',
      to: '2026-03-20T00:00:00.000Z',
    };
    // Athena answers no row, which measure() refuses after sending the text: only the text matters here.
    const noRow = (err: Error) => expect(err.message).toBe('Planning baseline query returned no row');
    await baselines.measure(request).catch(noRow);
    await baselines.measure({ ...request, property: "buyer's amount", cupedLookbackDays: 14 }).catch(noRow);
  },
  'lambdas/adapters/athena-analytics-views.ts': async () => {
    const views = new AthenaAnalyticsViews(resultsQuery(false), { database: DATABASE, maxWaitMs: 60_000 }, { remove: async () => 0 }, async (stream) => ({
      compactedThrough: stream === 'events' ? '2026-03-20-10' : undefined,
      retiring: [],
    }));
    await views.create();
    await views.drop();
  },
  'lambdas/adapters/athena-compaction.ts': async () => {
    // Glue is not reached by these calls: the partitions query, a generation's UNLOAD and the views.
    const store = new AthenaCompactionStore(resultsQuery(false), new S3Client({ region: 'eu-west-1', credentials }), { send: async () => ({}) } as never, {
      database: DATABASE,
      bucket: 'raw-bucket',
    });
    const hours = ['2026-03-20-09', '2026-03-20-10'];
    const batch = [
      { projectId: 'proj-main', dt: '2026-03-19' },
      { projectId: "it's", dt: '2026-03-20' },
    ];
    for (const stream of ['events', 'identities'] as const) {
      await store.partitionsOf(stream, hours);
      await store.writeGeneration(stream, batch, hours, '20260320T120000000Z-abc');
    }
    await store.publishViews({ events: '2026-03-20-10', identities: undefined });
    // A person's deletion (docs/decisions/erasure.md): the links, then per stream the partitions holding them and a generation without them.
    const person = ['ann', "o'neil"];
    await store.linksOf('proj-main', person);
    for (const stream of ['events', 'identities'] as const) {
      await store.curatedPartitionsOf(stream, 'proj-main', person, '2026-03-20T12:00:00.000Z');
      await store.writeGenerationWithout(stream, batch, person, '2026-03-20T12:00:00.000Z', '20260320T130000000Z-def');
    }
    // A person's export: their events and identity links over the readers' views.
    await store.rowsOf('proj-main', { ids: person, through: '2026-03-20T12:00:00.000Z' });
  },
  'bin/smoke/raw-stream.ts': async () => {
    const check = athenaRawEvents(athenaClient(), WORKGROUP, DATABASE, new S3Client({ region: 'us-east-1' }), 'raw-bucket');
    await check.count('proj-main', "o'clock", '2026-03-20');
    // The deletion step's count of the smoke person's events left.
    await check.countPerson!('proj-main', "o'neil", '2026-03-20');
  },
};

/** The texts each source sent. */
const TEXTS = new Map<string, string[]>();

beforeAll(async () => {
  serveAthena();
  serveS3(false);
  for (const [source, drive] of Object.entries(SOURCES)) {
    sent = [];
    await drive();
    TEXTS.set(source, sent);
  }
});
afterAll(() => {
  athena.restore();
  s3.restore();
});

/** The problems of each text (numbered in the order sent), with its first line to find it by. */
function problems(texts: string[]): string[] {
  return texts.flatMap((sql, i) => {
    const errors = trinoSyntaxErrors(sql);
    return errors.length === 0 ? [] : [`text ${i + 1} (${sql.split('\n')[0]}):\n  ${errors.join('\n  ')}`];
  });
}

describe('the SQL sent to Athena parses with the Trino grammar', () => {
  it.each(Object.keys(SOURCES))('%s', (source) => {
    const texts = TEXTS.get(source) ?? [];
    expect(texts.length, `${source} sent no query`).toBeGreaterThan(0);
    expect(problems(texts).join('\n\n')).toBe('');
  });

  it('drove every statement and option: each results statement, each insight option of the registry, both recent-events queries and the event names, the views DDL', () => {
    const results = TEXTS.get('lambdas/adapters/athena-results-query.ts')!;
    const first = (sql: string) => sql.split('\n')[0]!;
    // The full count ('WITH' on a line of its own), the watermark, the state INSERT and its commit, the roll-up, the incremental count.
    expect(new Set(results.map(first))).toEqual(
      new Set(['WITH', 'SELECT max(slice_hi) AS watermark', 'INSERT INTO tally.results_state', 'INSERT INTO tally.results_base', 'WITH tail AS (']),
    );
    // The base roll-up: the first (no previous generation) and one over the committed generation.
    const baseInserts = results.filter((t) => t.startsWith('INSERT INTO tally.results_base'));
    expect(baseInserts.map((t) => t.includes(`generation = '${BASE_COMMIT.generation}'`))).toEqual([false, true]);
    const options = <T>(kind: InsightKindName, pick: (d: Record<string, unknown>) => T[]) =>
      new Set(DEFINITIONS[kind].flatMap((d) => pick(d as Record<string, unknown>)));
    expect(options('trends', (d) => (d.series as Array<{ measure: string }>).map((s) => s.measure))).toEqual(new Set(TREND_MEASURES));
    expect(options('trends', (d) => [d.interval])).toEqual(new Set(TREND_INTERVALS));
    expect(options('trends', (d) => [d.breakdown])).toEqual(new Set([undefined, ...TREND_BREAKDOWNS]));
    expect(options('trends', (d) => [d.compare])).toEqual(new Set([true, false]));
    expect(options('funnels', (d) => [d.breakdown])).toEqual(new Set([undefined, ...FUNNEL_BREAKDOWNS]));
    expect(options('funnels', (d) => (d.steps as Array<{ where?: object }>).map((s) => s.where !== undefined))).toEqual(new Set([true, false]));
    expect(options('retention', (d) => [d.interval])).toEqual(new Set(RETENTION_INTERVALS));
    const definitions = INSIGHT_KIND_NAMES.reduce((n, kind) => n + DEFINITIONS[kind].length, 0);
    expect(TEXTS.get('lambdas/adapters/athena-insights.ts')).toHaveLength(definitions);
    // Four listings over the newest candidates; the three whose candidates held fewer events than asked for, again over every matching row; then the event names and the property names.
    const listings = TEXTS.get('lambdas/adapters/athena-recent-events.ts')!;
    expect(listings.map((t) => /\n\s*LIMIT \d+\n\s*\) matching/.test(t))).toEqual([true, false, true, false, true, true, false, false, false]);
    expect(listings.at(-2)).toMatch(/^SELECT name, count\(\*\) AS events/);
    expect(listings.at(-1)).toMatch(/^SELECT property_keys\.name AS name, count\(\*\) AS events/);
    expect(listings.at(-1)).toContain("dt >= '2026-03-13'");
    expect(TEXTS.get('lambdas/adapters/athena-recent-users.ts')).toHaveLength(4);
    expect(TEXTS.get('lambdas/adapters/athena-planning-baseline.ts')).toHaveLength(2);
    expect(TEXTS.get('lambdas/adapters/athena-analytics-views.ts')!.map((t) => t.split(/\s/).slice(0, 5).join(' '))).toEqual([
      'CREATE OR REPLACE VIEW tally.events',
      'CREATE OR REPLACE VIEW tally.identities',
      'CREATE OR REPLACE VIEW tally.events_tail',
      'CREATE OR REPLACE VIEW tally.unique_events',
      'CREATE OR REPLACE VIEW tally.events_by_arrival',
      'DROP VIEW IF EXISTS tally.events_by_arrival',
      'DROP VIEW IF EXISTS tally.unique_events',
      'DROP VIEW IF EXISTS tally.events_tail',
      'DROP VIEW IF EXISTS tally.identities',
      'DROP VIEW IF EXISTS tally.events',
    ]);
    // The compaction job: the partitions query and a generation's UNLOAD for each stream, then the views.
    expect(TEXTS.get('lambdas/adapters/athena-compaction.ts')!.map((t) => t.split('\n')[0])).toEqual([
      'SELECT DISTINCT',
      'UNLOAD (',
      'SELECT DISTINCT',
      'UNLOAD (',
      'CREATE OR REPLACE VIEW tally.events AS',
      'CREATE OR REPLACE VIEW tally.identities AS',
      'CREATE OR REPLACE VIEW tally.events_tail AS',
      'CREATE OR REPLACE VIEW tally.unique_events AS',
      'CREATE OR REPLACE VIEW tally.events_by_arrival AS',
      'SELECT DISTINCT id, canonical_id',
      'SELECT project_id, dt, count(*) AS person_rows',
      'UNLOAD (',
      'SELECT project_id, dt, count(*) AS person_rows',
      'UNLOAD (',
      // A person's export: their events, then their identity links.
      'SELECT',
      'SELECT',
    ]);
    expect(
      TEXTS.get('lambdas/adapters/athena-compaction.ts')!
        .slice(-2)
        .map((t) => /FROM tally\.(\w+)/.exec(t)?.[1]),
    ).toEqual(['events', 'identities']);
  });

  it('covers every module that starts Athena queries or runs SQL through AthenaResultsQuery', () => {
    const senders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.ts$/.test(entry.name)) {
          const text = readFileSync(join(ROOT, path), 'utf8');
          if (text.includes('new StartQueryExecutionCommand(') || /\.run\(this\.sql\(|athena\.run\(/.test(text) || /^athena-/.test(entry.name))
            senders.push(path);
        }
      }
    };
    walk('lambdas');
    walk('bin');
    expect(senders.sort()).toEqual(Object.keys(SOURCES).sort());
  });
});

describe('the grammar check', () => {
  it('reports DuckDB-only syntax with its line, column, the parser message and the offending line', () => {
    expect(trinoSyntaxErrors("SELECT properties->>'plan' AS plan\nFROM tally.events")).toEqual([
      "line 1, column 20: '>' is not valid at this position, expecting an existing function or an existing column or a keyword\n" +
        "    SELECT properties->>'plan' AS plan\n" +
        '                       ^',
    ]);
    expect(trinoSyntaxErrors('SELECT 1 :: varchar')[0]).toMatch(/^line 1, column 10: ':' is not valid at this position/);
    expect(trinoSyntaxErrors('SELECT a, b,\nFROM t')[0]).toMatch(/^line 2, column 1: 'FROM' is not valid at this position/);
    expect(trinoSyntaxErrors('SELECT 1 AS a UNION ALL BY NAME SELECT 2 AS a')[0]).toMatch(/^line 1, column 25: 'BY' is not valid/);
    expect(trinoSyntaxErrors('SELECT 1; SELECT 2')).toEqual(['2 statements in one text: Athena runs exactly one per query']);
    expect(trinoSyntaxErrors('SELECT 1')).toEqual([]);
  });

  it("checks an UNLOAD's query with the grammar and its wrapper against the form Athena documents", () => {
    const unload = (
      query: string,
      wrapper = "WITH (format = 'PARQUET', compression = 'ZSTD', compression_level = 19, partitioned_by = ARRAY['project_id', 'dt'])",
    ) => `UNLOAD (\n${query}\n)\nTO 's3://raw-bucket/curated/events/_staging/g1/'\n${wrapper}`;
    expect(trinoSyntaxErrors(unload('SELECT a, project_id, dt\nFROM t\nORDER BY a'))).toEqual([]);
    expect(trinoSyntaxErrors(unload('SELECT a::varchar FROM t'))[0]).toMatch(/^in UNLOAD's query, line 1, column \d+: ':' is not valid/);
    for (const wrapper of ['WITH (format = PARQUET)', "WITH (format = 'PARQUET', partitioned_by = 'dt')", "WITH (compression = 'ZSTD')"]) {
      expect(trinoSyntaxErrors(unload('SELECT 1', wrapper)), wrapper).toEqual([expect.stringMatching(/^an UNLOAD not of the form Athena documents/)]);
    }
  });

  it('finds a DuckDB cast slipped into a text the adapters send', () => {
    const full = TEXTS.get('lambdas/adapters/athena-results-query.ts')![0]!;
    const mutated = full.replace("project_id = 'proj-main'", "project_id::varchar = 'proj-main'");
    expect(mutated).not.toBe(full);
    const reported = problems([full, mutated]);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^text 2 \(WITH\):\n {2}line \d+, column \d+: ':' is not valid at this position.*\n.*project_id::varchar = 'proj-main'/);
  });
});

describe('every text reads the identities table at most once', () => {
  const IDENTITIES = `${DATABASE}.identities`;
  /** The funnels' texts among the insight engine's (numbered as sent: trends, then funnels, then retention). */
  const FUNNEL_TEXTS = new Set(DEFINITIONS.funnels.map((_, i) => DEFINITIONS.trends.length + i + 1));
  /** The funnel query's reads of the identities table, pinned so it cannot grow. */
  const FUNNEL_READS = 32;

  it('counts the reads of each text, a WITH relation counting again wherever it is used (Trino inlines it), and finds at most one', () => {
    const reads = [...TEXTS].flatMap(([source, texts]) =>
      texts.map((sql, i) => ({ text: `${source} text ${i + 1} (${sql.split('\n')[0]})`, n: tableReads(sql).get(IDENTITIES) ?? 0 })),
    );
    // Except the funnels: each step's join of the per-step events with itself runs them again (32 reads
    // for any number of steps, the query always computes 6). Read once with windows instead, they
    // took about 4 times as long on DuckDB locally: see docs/decisions/one-query-source.md.
    const funnel = (r: { text: string }) =>
      /^lambdas\/adapters\/athena-insights\.ts text (\d+) /.test(r.text) && FUNNEL_TEXTS.has(Number(/text (\d+) /.exec(r.text)![1]));
    expect(reads.filter((r) => r.n > 1 && !funnel(r)).map((r) => `${r.text}: ${r.n} reads`)).toEqual([]);
    expect(new Set(reads.filter(funnel).map((r) => r.n))).toEqual(new Set([FUNNEL_READS]));
    // Every query that resolves identities was driven: the counts, the insights and the planning baseline;
    // and a person's export reads their links from the identities view.
    const readers = new Set(reads.filter((r) => r.n === 1).map((r) => r.text.split(' text ')[0]));
    expect(readers).toEqual(
      new Set([
        'lambdas/adapters/athena-results-query.ts',
        'lambdas/adapters/athena-insights.ts',
        'lambdas/adapters/athena-planning-baseline.ts',
        'lambdas/adapters/athena-compaction.ts',
      ]),
    );
  });

  it('sees a relation read twice through a WITH name, and names shadowed by a WITH', () => {
    expect(tableReads('WITH a AS (SELECT id FROM tally.identities), b AS (SELECT x.id FROM a x JOIN a y ON x.id = y.id) SELECT * FROM b').get(IDENTITIES)).toBe(
      2,
    );
    expect(tableReads('WITH a AS (SELECT id FROM tally.identities) SELECT * FROM a, a AS b, a AS c').get(IDENTITIES)).toBe(3);
    expect(tableReads('WITH identities AS (SELECT 1 AS id) SELECT * FROM identities JOIN "tally"."identities" USING (id)').get(IDENTITIES)).toBe(1);
  });
});
