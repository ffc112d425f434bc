/**
 * The incremental results job on AWS (issue 13), without AWS: the Athena text the adapter renders
 * (its structure, statement by statement: the same text DuckDB runs but for the table names, Trino
 * only, the partition and file filters that make the cost follow the new data) and the order of the
 * four queries against a mocked Athena, including a failed INSERT INTO (the count reads from the
 * watermark still committed) and an empty state. With metrics (issue 22): the slots each query
 * renders, the metric rows keyed by event, and the watermark read per set of metric sources.
 */
import { expectWatchedByAlarm } from '../helpers/emf';
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  type GetQueryResultsCommandOutput,
} from '@aws-sdk/client-athena';
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AthenaResultsQuery } from '../../lambdas/adapters/athena-results-query';
import { S3ResultsBase } from '../../lambdas/adapters/s3-results-base';
import { setLogWriter } from '../../lambdas/logging/log';
import { LOCAL_BASE_TABLE, LOCAL_STATE_TABLE } from '../../lambdas/adapters/duckdb-results-state';
import { LOCAL_TABLES } from '../../lambdas/adapters/duckdb-results-query';
import {
  renderResultsBaseInsert,
  renderResultsCommit,
  renderResultsCountIncremental,
  renderResultsStateInsert,
  renderResultsSummary,
  renderResultsWatermark,
} from '../../lambdas/adapters/sql/render-incremental';
import { RESULTS_BASE_PARTITIONS, RESULTS_STATE_COLUMNS, RESULTS_STATE_PARTITIONS } from '../../lambdas/contract/results-state';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';
import type { CountRequest } from '../../lambdas/ports';

const GLUE = {
  events: 'tally.events',
  eventsByArrival: 'tally.events_by_arrival',
  identities: 'tally.identities',
  state: 'tally.results_state',
  base: 'tally.results_base',
};
const LOCAL = { ...LOCAL_TABLES, eventsByArrival: LOCAL_TABLES.events, state: LOCAL_STATE_TABLE, base: LOCAL_BASE_TABLE };
const REQUEST: CountRequest = {
  projectId: 'proj-main',
  experimentId: 'exp-1',
  experimentName: 'Button Color',
  variants: ['a', 'b'],
  goalEvent: 'signup',
  from: '2026-03-02T00:00:00.000Z',
  to: '2026-03-20T12:00:00.000Z',
  projectCreatedAt: '2026-02-01T08:00:00.000Z',
  series: 'day',
};
const METRICS: ExperimentMetric[] = [
  { name: 'Orders', event: 'purchase', kind: 'count', role: 'secondary' },
  { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'guardrail', direction: 'decrease', cap: 0.99 },
  { name: 'Buyers', event: 'purchase', kind: 'conversion', role: 'secondary' },
];
const WITH_METRICS: CountRequest = { ...REQUEST, metrics: METRICS };
const SLICE = { lo: '2026-03-20T10:50:00.000Z', hi: '2026-03-20T11:50:00.000Z' };
const STATE_ORDER = [...Object.keys(RESULTS_STATE_COLUMNS), ...RESULTS_STATE_PARTITIONS];
const DUCK_ONLY = ['->>', '::', 'read_json', 'read_parquet', 'json_extract_string', 'arg_min', 'tally_', '{{', 'WITH RECURSIVE', '--'];

/** The names of a statement's top-level CTEs, in order. */
const cteNames = (sql: string) => [...sql.matchAll(/^(?:WITH )?([a-z_]+) AS \($/gm)].map((m) => m[1]);
/** The output column names of the summary's outer SELECT, in order. */
const summaryColumns = (sql: string) => {
  const outer = sql.slice(sql.indexOf('SELECT'), sql.indexOf('\nFROM (')).split('\n').slice(1);
  return outer.map((line) => /(?:AS )?"?([a-z_]+)"?,?$/.exec(line.trim())![1]);
};

describe('the incremental results SQL for Athena', () => {
  it('summarises a slice: events of the slice arrival range, from the landing hours of the slice only (an hour wider on each side), grouped per ID as sent; the columns in the state table order', () => {
    const sql = renderResultsStateInsert(REQUEST, SLICE, GLUE);
    expect(sql.split('\n')[0]).toBe('INSERT INTO tally.results_state');
    expect(summaryColumns(sql.slice(sql.indexOf('\n') + 1))).toEqual(STATE_ORDER);
    expect(sql).toMatch(
      new RegExp(
        [
          `FROM tally\\.events_by_arrival`,
          `WHERE project_id = 'proj-main'`,
          `AND dt BETWEEN '2026-03-02' AND '2026-03-22'`, // the run's first day to two days after the slice (future clamp)
          `AND arrival_hour BETWEEN '2026-03-20-09' AND '2026-03-20-12'`, // the slice's landing hours, an hour wider on each side
          `AND received_at >= '2026-03-20T10:50:00\\.000Z'`,
          `AND received_at < '2026-03-20T11:50:00\\.000Z'`,
          `AND "timestamp" >= '2026-03-02T00:00:00\\.000Z'`,
          `AND sent_user_id IS NOT NULL`,
        ].join('\\s+'),
      ),
    );
    // Merged up to the slice's end; later-stamped events keep a row each.
    expect(sql).toContain(`CASE WHEN m.metric_event IS NULL AND event_time > '2026-03-20T11:50:00.000Z' THEN sort_key END AS pending_key`);
    expect(sql).toContain(`'2026-03-20T10:50:00.000Z' AS slice_lo`);
    expect(sql).toContain(`'exp-1' AS experiment_id`);
    expect(sql).toContain(`'2026-03-20' AS dt`);
    expect(sql.trim().split('\n').at(-1)).toBe('GROUP BY sent_user_id, variant, is_goal, on_hour, pending_key, metric_source, event_key');
    // Without metrics, the base slot alone: the enrollment and goal rows.
    expect(sql).toContain(`FROM UNNEST(ARRAY['[]']) AS slots (metric)`);
    for (const duckOnly of DUCK_ONLY) expect(sql, duckOnly).not.toContain(duckOnly);
    expect(sql.replace(/'[^']*'/g, "''")).not.toMatch(/:[a-z_]+/);
  });

  it('counts from the committed state plus the raw events received since the watermark, in the CTE structure of the full count', () => {
    const sql = renderResultsCountIncremental(REQUEST, SLICE.hi, GLUE);
    expect(cteNames(sql)).toEqual([
      'tail',
      'base_rows',
      'state_rows',
      'summaries',
      'deduplicated',
      'links',
      'canonical',
      'resolved',
      'resolved_enrolled',
      'users',
      'user_values',
    ]);
    // tail: everything received since the watermark, merged up to the run's end.
    const tail = sql.slice(0, sql.indexOf('state_rows AS ('));
    expect(tail).toContain('FROM tally.events_by_arrival');
    // The landing hours from an hour before the watermark's on.
    expect(tail).toMatch(/AND arrival_hour BETWEEN '2026-03-20-10' AND '9999-12-31-23'/);
    expect(tail).toMatch(/AND dt BETWEEN '2026-03-02' AND '2026-03-20'/);
    expect(tail).toMatch(/received_at >= '2026-03-20T11:50:00\.000Z'\s+AND received_at < '9999-12-31T23:59:59\.999Z'/);
    expect(tail).toContain(`CASE WHEN m.metric_event IS NULL AND event_time > '2026-03-20T12:00:00.000Z' THEN sort_key END AS pending_key`);
    // state_rows: the experiment's committed slices only, no commit markers.
    expect(sql).toMatch(
      /FROM tally\.results_state\s+WHERE project_id = 'proj-main'\s+AND experiment_id = 'exp-1'\s+AND dt BETWEEN '2026-02-28' AND '2026-03-20'\s+AND slice_hi <= '2026-03-20T11:50:00\.000Z'\s+AND sent_user_id IS NOT NULL/,
    );
    expect(sql).toMatch(/FROM tally\.identities\s+WHERE project_id = 'proj-main'\s+AND dt >= '2026-01-31'/);
    expect(sql).toContain(`WHERE ((s.pending_key IS NULL AND s.metric_source IS NULL) OR coalesce(s.first_at, s.last_at) <= '2026-03-20T12:00:00.000Z')`);
    expect(sql).toContain(`ARRAY['a', 'b']`);
    for (const duckOnly of DUCK_ONLY) expect(sql, duckOnly).not.toContain(duckOnly);
  });

  it('commits with one marker row in the state table order, and reads the latest marker back', () => {
    const commit = renderResultsCommit(REQUEST, SLICE, GLUE);
    expect(commit.split('\n')[0]).toBe('INSERT INTO tally.results_state');
    expect(summaryColumns(commit.slice(commit.indexOf('\n') + 1) + '\nFROM (')).toEqual(STATE_ORDER);
    expect(commit).toContain(`'2026-03-20T11:50:00.000Z' AS slice_hi`);
    expect(renderResultsWatermark({ ...REQUEST, now: '2026-03-20T12:00:00.000Z' }, GLUE)).toBe(
      [
        'SELECT max(slice_hi) AS watermark',
        'FROM tally.results_state',
        "WHERE project_id = 'proj-main'",
        "  AND experiment_id = 'exp-1'",
        "  AND dt BETWEEN '2026-02-28' AND '2026-03-20'",
        '  AND sent_user_id IS NULL',
        "  AND coalesce(metric_sources, '[]') = '[]'",
      ].join('\n'),
    );
  });

  it('with metrics: the summary keeps one slot per metric source, the count one per metric, the commit and the watermark the set of sources', () => {
    const sources = ['["purchase",null]', '["purchase","amount","numbers within 1000000000000000"]'];
    const summary = renderResultsStateInsert(WITH_METRICS, SLICE, GLUE);
    expect(summaryColumns(summary.slice(summary.indexOf('\n') + 1))).toEqual(STATE_ORDER);
    // The count and the conversion of purchase share a source; the sum reads amount by a constant-form path.
    expect(summary).toContain(
      `FROM UNNEST(ARRAY['[]', '[null,null,"purchase","$[\\"amount\\"]",null,"[\\"purchase\\",\\"amount\\",\\"numbers within 1000000000000000\\"]"]', '[null,null,"purchase",null,null,"[\\"purchase\\",null]"]']) AS slots (metric)`,
    );
    expect(summary).toContain(`CASE WHEN m.metric_event IS NOT NULL THEN dedupe_key END AS event_key`);
    const count = renderResultsCountIncremental(WITH_METRICS, SLICE.hi, GLUE);
    expect(count).toContain(`'["1","sum","purchase","$[\\"amount\\"]","0.99","[\\"purchase\\",\\"amount\\",\\"numbers within 1000000000000000\\"]"]'`);
    expect(count).toContain('min_by(metric_value, first_key) AS metric_value');
    // The exact percentile from row_number and count: no approximate aggregate.
    expect(count).toContain('row_number() OVER (PARTITION BY cap_group, cap_solo ORDER BY user_value) AS cap_rank');
    expect(count).not.toMatch(/approx_|percentile/i);
    for (const sql of [summary, count]) for (const duckOnly of DUCK_ONLY) expect(sql, duckOnly).not.toContain(duckOnly);
    const set = JSON.stringify(sources.sort());
    expect(renderResultsCommit(WITH_METRICS, SLICE, GLUE)).toContain(`'${set}' AS metric_sources`);
    expect(renderResultsWatermark({ ...WITH_METRICS, now: '2026-03-20T12:00:00.000Z' }, GLUE)).toContain(`AND coalesce(metric_sources, '[]') = '${set}'`);
  });

  it('rolls up into the base table in its column order, reading the previous generation by project, experiment and generation', () => {
    const previous = { generation: '20260319T020000000Z-old', boundaryDt: '2026-03-19' };
    const sql = renderResultsBaseInsert(
      REQUEST,
      { previous, closedFromDt: '2026-03-19', closedToDt: '2026-03-19', watermark: SLICE.hi, generation: '20260320T020000000Z-new' },
      GLUE,
    );
    expect(sql.split('\n')[0]).toBe('INSERT INTO tally.results_base');
    const outer = sql.slice(sql.lastIndexOf('\nSELECT\n') + 8, sql.lastIndexOf('\nFROM own_converted'));
    expect(outer.split('\n').map((line) => /(?:AS )?"?([a-z_]+)"?,?$/.exec(line.trim())![1])).toEqual([
      ...Object.keys(RESULTS_STATE_COLUMNS),
      ...RESULTS_BASE_PARTITIONS,
    ]);
    expect(sql).toMatch(/FROM tally\.results_base\s+WHERE project_id = 'proj-main'\s+AND experiment_id = 'exp-1'\s+AND generation = '20260319T020000000Z-old'/);
    expect(sql).toContain(`'20260320T020000000Z-new' AS generation`);
    for (const duckOnly of DUCK_ONLY) expect(sql, duckOnly).not.toContain(duckOnly);
    expect(sql.replace(/'[^']*'/g, "''")).not.toMatch(/:[a-z_]+/);
  });

  it('is the text DuckDB runs, but for the table names', () => {
    // Table names as whole words: the local views are named events and identities, words the texts also hold inside other names.
    const table = (name: string) => new RegExp(`(?<![\\w.])${name}(?![\\w])`, 'g');
    const local = (sql: string) =>
      sql.replace(table(LOCAL.events), GLUE.eventsByArrival).replace(table(LOCAL.identities), GLUE.identities).replace(table(LOCAL.state), GLUE.state);
    expect(local(renderResultsSummary(REQUEST, SLICE, LOCAL))).toBe(renderResultsSummary(REQUEST, SLICE, GLUE));
    expect(local(renderResultsCountIncremental(REQUEST, SLICE.hi, LOCAL))).toBe(renderResultsCountIncremental(REQUEST, SLICE.hi, GLUE));
    expect(local(renderResultsCountIncremental(WITH_METRICS, SLICE.hi, LOCAL))).toBe(renderResultsCountIncremental(WITH_METRICS, SLICE.hi, GLUE));
  });
});

describe('AthenaResultsQuery.countIncremental (mocked Athena)', () => {
  const athena = mockClient(AthenaClient);
  beforeEach(() => athena.reset());
  const client = () => new AthenaClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });

  /** Answers the four queries: the watermark (stored), the inserts (failing when told), the count. */
  function serve(options: { stored: string | null; failInsert?: boolean }) {
    const texts: string[] = [];
    athena.on(StartQueryExecutionCommand).callsFake((input) => {
      texts.push(input.QueryString);
      return { QueryExecutionId: `q-${texts.length}` };
    });
    athena.on(GetQueryExecutionCommand).callsFake((input) => {
      const sql = texts[Number(input.QueryExecutionId.slice(2)) - 1]!;
      const failed = options.failInsert && sql.startsWith('INSERT INTO') && sql.includes('GROUP BY');
      return {
        QueryExecution: {
          QueryExecutionId: input.QueryExecutionId,
          Status: failed ? { State: 'FAILED', StateChangeReason: 'HIVE_PATH_ALREADY_EXISTS' } : { State: 'SUCCEEDED' },
          Statistics: { DataScannedInBytes: 1000 },
        },
      };
    });
    athena.on(GetQueryResultsCommand).callsFake((input) => {
      const sql = texts[Number(input.QueryExecutionId.slice(2)) - 1]!;
      const table = (names: string[], rows: Array<Array<string | null>>): GetQueryResultsCommandOutput =>
        ({
          ResultSet: {
            ResultSetMetadata: { ColumnInfo: names.map((Name) => ({ Name, Type: 'varchar' })) },
            Rows: [names, ...rows].map((r) => ({ Data: r.map((v) => (v === null ? {} : { VarCharValue: v })) })),
          },
        }) as GetQueryResultsCommandOutput;
      if (sql.startsWith('SELECT max(slice_hi)')) return table(['watermark'], [[options.stored]]);
      if (sql.startsWith('WITH tail')) {
        return table(
          ['variant', 'period', 'enrolled', 'converted', 'multiple_exposures'],
          [
            ['a', null, '10', '4', '1'],
            ['b', null, '12', '7', '1'],
            ['a', '2026-03-20', '10', '4', '1'],
            ['b', '2026-03-20', '12', '7', '1'],
          ],
        );
      }
      return table([], []);
    });
    return texts;
  }
  const query = () => new AthenaResultsQuery(client(), { workGroup: 'w', pollMs: 1 });
  const run = { ...REQUEST, to: '2026-03-20T12:00:00.000Z', now: '2026-03-20T12:15:00.000Z' };

  it('reads the watermark, inserts the next slice, commits it, then counts from the new watermark', async () => {
    const texts = serve({ stored: SLICE.lo });
    const result = await query().countIncremental(run);
    expect(texts.map((t) => t.split('\n')[0])).toEqual([
      'SELECT max(slice_hi) AS watermark',
      'INSERT INTO tally.results_state',
      'INSERT INTO tally.results_state',
      'WITH tail AS (',
    ]);
    expect(texts[1]).toBe(renderResultsStateInsert(run, SLICE, GLUE)); // 10:50 to 12:15 minus the 25-minute allowance
    expect(texts[2]).toBe(renderResultsCommit(run, SLICE, GLUE));
    expect(texts[3]).toBe(renderResultsCountIncremental(run, SLICE.hi, GLUE));
    expect(result.incremental).toEqual({ previousWatermark: SLICE.lo, watermark: SLICE.hi, committed: true, fullRecompute: false });
    expect(result.variants).toEqual([
      { variant: 'a', enrolled: 10, converted: 4 },
      { variant: 'b', enrolled: 12, converted: 7 },
    ]);
    expect(result.periods).toHaveLength(2);
    expect(result.bytesScanned).toBe(4000);
  });

  it('counts from the watermark still committed when the slice insert fails, commits nothing and emits the ResultsStateWriteFailed metric', async () => {
    const texts = serve({ stored: SLICE.lo, failInsert: true });
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    const result = await query()
      .countIncremental(run)
      .finally(() => write.mockRestore());
    const metrics = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => '_aws' in l);
    for (const line of lines.filter((l) => l.includes('"_aws"'))) expectWatchedByAlarm(line);
    expect(metrics).toEqual([
      {
        _aws: {
          Timestamp: expect.any(Number),
          CloudWatchMetrics: [{ Namespace: 'Tally', Dimensions: [['FunctionName']], Metrics: [{ Name: 'ResultsStateWriteFailed', Unit: 'Count' }] }],
        },
        FunctionName: 'local',
        ResultsStateWriteFailed: 1,
      },
    ]);
    expect(texts).toHaveLength(3);
    expect(texts[2]).toBe(renderResultsCountIncremental(run, SLICE.lo, GLUE));
    expect(result.incremental).toMatchObject({ watermark: SLICE.lo, committed: false });
    expect(result.variants[1]).toEqual({ variant: 'b', enrolled: 12, converted: 7 });
  });

  it('starts an empty state at the run start minus the 48-hour future clamp', async () => {
    const texts = serve({ stored: null });
    const result = await query().countIncremental(run);
    expect(result.incremental.previousWatermark).toBe('2026-02-28T00:00:00.000Z');
    expect(texts[1]).toContain(`received_at >= '2026-02-28T00:00:00.000Z'`);
  });
});

describe('AthenaResultsQuery.countIncremental with the base (mocked Athena and S3)', () => {
  const athena = mockClient(AthenaClient);
  const s3 = mockClient(S3Client);
  beforeEach(() => {
    athena.reset();
    s3.reset();
  });
  const credentials = { accessKeyId: 'x', secretAccessKey: 'y' };
  const OLD = '20260319T020000000Z-old';
  const commitOf = (generation: string, committedAt: string) => ({
    generation,
    boundaryDt: '2026-03-19',
    watermark: '2026-03-19T01:35:00.000Z',
    committedAt,
  });
  /** A stored commit; the S3 calls the job makes, by command. */
  function serveS3(options: { commit?: object; generations?: string[]; failDelete?: boolean }) {
    s3.on(GetObjectCommand).callsFake(() => {
      if (!options.commit) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
      return { Body: { transformToString: async () => JSON.stringify(options.commit) } };
    });
    s3.on(PutObjectCommand).resolves({});
    s3.on(ListObjectsV2Command).callsFake((input) =>
      input.Delimiter === '/'
        ? { CommonPrefixes: (options.generations ?? []).map((g) => ({ Prefix: `${input.Prefix}${g}/` })) }
        : { Contents: [{ Key: `${input.Prefix}part-0.parquet` }, { Key: `${input.Prefix}part-1.parquet` }] },
    );
    s3.on(DeleteObjectsCommand).callsFake(() => {
      if (options.failDelete) throw new Error('AccessDenied');
      return {};
    });
  }
  /** Athena: the state's watermark, every insert succeeding unless it is the base's, the count. */
  function serveAthena(options: { stored: string | null; failBase?: boolean }) {
    const texts: string[] = [];
    athena.on(StartQueryExecutionCommand).callsFake((input) => ({ QueryExecutionId: `q-${texts.push(input.QueryString)}` }));
    athena.on(GetQueryExecutionCommand).callsFake((input) => {
      const sql = texts[Number(input.QueryExecutionId.slice(2)) - 1]!;
      const failed = options.failBase && sql.startsWith('INSERT INTO tally.results_base');
      return { QueryExecution: { Status: failed ? { State: 'FAILED', StateChangeReason: 'HIVE_BAD_DATA' } : { State: 'SUCCEEDED' } } };
    });
    athena.on(GetQueryResultsCommand).callsFake((input) => {
      const sql = texts[Number(input.QueryExecutionId.slice(2)) - 1]!;
      const rows = sql.startsWith('SELECT max(slice_hi)')
        ? [['watermark'], [options.stored]]
        : [
            ['variant', 'period', 'enrolled', 'converted', 'multiple_exposures'],
            ['a', null, '3', '1', '0'],
          ];
      return {
        ResultSet: {
          ResultSetMetadata: { ColumnInfo: rows[0]!.map((Name) => ({ Name })) },
          Rows: rows.map((r) => ({ Data: r.map((v) => (v === null ? {} : { VarCharValue: v })) })),
        },
      };
    });
    return texts;
  }
  const query = () =>
    new AthenaResultsQuery(new AthenaClient({ region: 'eu-west-1', credentials }), {
      workGroup: 'w',
      pollMs: 1,
      base: new S3ResultsBase(new S3Client({ region: 'eu-west-1', credentials }), 'raw-bucket'),
    });
  const run = { ...REQUEST, to: '2026-03-20T12:00:00.000Z', now: '2026-03-20T12:15:00.000Z' };
  const metricsOf = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => '_aws' in l);
  /** Runs f with the metrics (standard output) and the log records captured. */
  const quietly = async <T>(f: () => Promise<T>): Promise<{ value: T; lines: string[]; log: string }> => {
    const lines: string[] = [];
    const records: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    setLogWriter((r) => records.push(`${r.level} ${r.msg}`));
    const level = process.env.TALLY_LOG_LEVEL;
    process.env.TALLY_LOG_LEVEL = 'info';
    try {
      return { value: await f(), lines, log: records.join('\n') };
    } finally {
      write.mockRestore();
      setLogWriter(undefined);
      if (level === undefined) delete process.env.TALLY_LOG_LEVEL;
      else process.env.TALLY_LOG_LEVEL = level;
    }
  };

  it('rolls the closed day up into a new generation, commits it in S3 after the INSERT, and counts from it plus the open day', async () => {
    serveS3({ commit: commitOf(OLD, '2026-03-19T02:00:10.000Z'), generations: [OLD] });
    const texts = serveAthena({ stored: SLICE.lo });
    const { value: result } = await quietly(() => query().countIncremental(run));
    expect(texts.map((t) => t.split('\n')[0])).toEqual([
      'SELECT max(slice_hi) AS watermark',
      'INSERT INTO tally.results_state',
      'INSERT INTO tally.results_state',
      'INSERT INTO tally.results_base',
      'WITH tail AS (',
    ]);
    // The watermark is read from the base's boundary on; the roll-up reads the previous generation and the closed day.
    expect(texts[0]).toContain("AND dt BETWEEN '2026-03-19' AND '2026-03-20'");
    expect(texts[3]).toContain(`generation = '${OLD}'`);
    expect(texts[3]).toMatch(/AND dt BETWEEN '2026-03-19' AND '2026-03-19'\s+AND slice_hi <= '2026-03-20T11:50:00\.000Z'/);
    const generation = /'([0-9T]+Z-[0-9a-f]+)' AS generation/.exec(texts[3]!)![1]!;
    expect(generation).toMatch(/^20260320T121500000Z-[0-9a-f]{32}$/);
    // The commit names the new generation and the day boundary, written after the INSERT succeeded.
    const put = s3.commandCalls(PutObjectCommand);
    expect(put).toHaveLength(1);
    expect(put[0]!.args[0].input).toMatchObject({ Bucket: 'raw-bucket', Key: 'results-base/project_id=proj-main/experiment_id=exp-1/commit.json' });
    expect(JSON.parse(put[0]!.args[0].input.Body as string)).toMatchObject({ generation, boundaryDt: '2026-03-20', watermark: SLICE.hi });
    // The count reads the new generation and the state days from its boundary only.
    expect(texts[4]).toContain(`generation = '${generation}'`);
    expect(texts[4]).not.toContain(OLD);
    expect(texts[4]).toMatch(
      /FROM tally\.results_state\s+WHERE project_id = 'proj-main'\s+AND experiment_id = 'exp-1'\s+AND dt BETWEEN '2026-03-20' AND '2026-03-20'/,
    );
    expect(result.incremental).toMatchObject({ committed: true, compactedDays: 1, baseGeneration: generation });
    // The generation it replaced may still be read by a run that began before the commit: not deleted yet.
    expect(s3.commandCalls(DeleteObjectsCommand)).toHaveLength(0);
  });

  it('leaves a failed base INSERT uncommitted, counts from the previous generation and emits ResultsBaseWriteFailed', async () => {
    serveS3({ commit: commitOf(OLD, '2026-03-19T02:00:10.000Z'), generations: [OLD] });
    const texts = serveAthena({ stored: SLICE.lo, failBase: true });
    const { value: result, lines, log } = await quietly(() => query().countIncremental(run));
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(texts[4]).toContain(`generation = '${OLD}'`);
    expect(texts[4]).toContain("AND dt BETWEEN '2026-03-19' AND '2026-03-20'");
    expect(result.incremental).toMatchObject({ committed: true, baseGeneration: OLD });
    expect(
      metricsOf(lines).map((m) => (m._aws as { CloudWatchMetrics: Array<{ Metrics: Array<{ Name: string }> }> }).CloudWatchMetrics[0]!.Metrics[0]!.Name),
    ).toEqual(['ResultsBaseWriteFailed']);
    for (const line of lines.filter((l) => l.includes('"_aws"'))) expectWatchedByAlarm(line);
    expect(log).toContain('results base not rolled up');
  });

  it('reads no base of another set of metric sources: the watermark of its own set from the empty state, a new base of its set, which supersedes the old', async () => {
    // The commit holds the set of no metrics (written before metrics, or before one was added); the run asks for one.
    serveS3({ commit: commitOf(OLD, '2026-03-19T02:00:10.000Z'), generations: [OLD] });
    const texts = serveAthena({ stored: null });
    const withMetric = { ...run, metrics: [{ name: 'Purchases', event: 'purchase', kind: 'count', role: 'secondary' }] as ExperimentMetric[] };
    const { value: result } = await quietly(() => query().countIncremental(withMetric));
    // The watermark is read from the empty state's day for the run's own set, not from the old base's boundary.
    expect(texts[0]).toContain("AND dt BETWEEN '2026-02-28' AND '2026-03-20'");
    expect(texts[0]).toContain(`= '["[\\"purchase\\",null]"]'`);
    const rollUp = texts.find((t) => t.startsWith('INSERT INTO tally.results_base'))!;
    expect(rollUp).not.toContain(OLD);
    expect(rollUp).not.toContain('FROM tally.results_base');
    const put = s3.commandCalls(PutObjectCommand);
    expect(put).toHaveLength(1);
    const commit = JSON.parse(put[0]!.args[0].input.Body as string) as { generation: string; metricSources: string };
    expect(commit.metricSources).toBe('["[\\"purchase\\",null]"]');
    expect(texts.at(-1)).not.toContain(OLD);
    expect(result.incremental.baseGeneration).toBe(commit.generation);
  });

  it("starts the first base from the empty state's day, with no previous generation to read", async () => {
    serveS3({});
    const texts = serveAthena({ stored: null });
    await quietly(() => query().countIncremental(run));
    const rollUp = texts.find((t) => t.startsWith('INSERT INTO tally.results_base'))!;
    expect(rollUp).not.toContain('FROM tally.results_base');
    expect(rollUp).toMatch(/AND dt BETWEEN '2026-02-28' AND '2026-03-19'/);
  });

  it('deletes superseded generations once no run can read or write them, and only those; a failed delete is logged and harmless', async () => {
    const current = '20260319T020000000Z-current';
    const stale = '20260318T020000000Z-stale';
    const failedAttempt = '20260319T014000000Z-failed';
    const now = new Date().toISOString().replace(/[-:.]/g, '');
    const running = `${now}-running`; // another run's generation, being written now
    serveS3({ commit: commitOf(current, '2026-03-19T02:00:10.000Z'), generations: [stale, current, failedAttempt, running] });
    serveAthena({ stored: '2026-03-19T20:00:00.000Z' });
    await quietly(() => query().countIncremental({ ...run, now: '2026-03-19T20:30:00.000Z', to: '2026-03-19T20:30:00.000Z' }));
    const deleted = s3.commandCalls(DeleteObjectsCommand).flatMap((c) => c.args[0].input.Delete!.Objects!.map((o) => o.Key));
    expect(deleted).toEqual([
      `results-base/project_id=proj-main/experiment_id=exp-1/generation=${stale}/part-0.parquet`,
      `results-base/project_id=proj-main/experiment_id=exp-1/generation=${stale}/part-1.parquet`,
      `results-base/project_id=proj-main/experiment_id=exp-1/generation=${failedAttempt}/part-0.parquet`,
      `results-base/project_id=proj-main/experiment_id=exp-1/generation=${failedAttempt}/part-1.parquet`,
    ]);

    s3.reset();
    serveS3({ commit: commitOf(current, '2026-03-19T02:00:10.000Z'), generations: [stale, current], failDelete: true });
    serveAthena({ stored: '2026-03-19T20:00:00.000Z' });
    const {
      value: result,
      lines,
      log,
    } = await quietly(() => query().countIncremental({ ...run, now: '2026-03-19T20:30:00.000Z', to: '2026-03-19T20:30:00.000Z' }));
    expect(result.variants).toBeDefined();
    expect(log).toContain('superseded results base generations not deleted');
    expect(metricsOf(lines)).toEqual([]);
  });
});
