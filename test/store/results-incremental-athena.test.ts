/**
 * The incremental results job on AWS (issue 13), without AWS: the Athena text the adapter renders
 * (its structure, statement by statement: the same text DuckDB runs but for the table names, Trino
 * only, the partition and file filters that make the cost follow the new data) and the order of the
 * four queries against a mocked Athena, including a failed INSERT INTO (the count reads from the
 * watermark still committed) and an empty state.
 */
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  type GetQueryResultsCommandOutput,
} from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AthenaResultsQuery } from '../../lambdas/adapters/athena-results-query';
import { LOCAL_BASE_TABLE, LOCAL_STATE_TABLE } from '../../lambdas/adapters/duckdb-results-state';
import { LOCAL_TABLES } from '../../lambdas/adapters/duckdb-results-query';
import {
  renderResultsCommit,
  renderResultsCountIncremental,
  renderResultsStateInsert,
  renderResultsSummary,
  renderResultsWatermark,
} from '../../lambdas/adapters/sql/render-incremental';
import { RESULTS_STATE_COLUMNS, RESULTS_STATE_PARTITIONS } from '../../lambdas/contract/results-state';
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
  daily: true,
};
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
  it('summarises a slice: events of the slice arrival range, from the arrival-hour partitions of the slice only, grouped per ID as sent; the columns in the state table order', () => {
    const sql = renderResultsStateInsert(REQUEST, SLICE, GLUE);
    expect(sql.split('\n')[0]).toBe('INSERT INTO tally.results_state');
    expect(summaryColumns(sql.slice(sql.indexOf('\n') + 1))).toEqual(STATE_ORDER);
    expect(sql).toMatch(
      new RegExp(
        [
          `FROM tally\\.events_by_arrival`,
          `WHERE project_id = 'proj-main'`,
          `AND dt BETWEEN '2026-03-02' AND '2026-03-22'`, // the run's first day to two days after the slice (future clamp)
          `AND received BETWEEN '2026-03-20-10' AND '2026-03-20-11'`, // the slice's arrival hours
          `AND received_at >= '2026-03-20T10:50:00\\.000Z'`,
          `AND received_at < '2026-03-20T11:50:00\\.000Z'`,
          `AND "timestamp" >= '2026-03-02T00:00:00\\.000Z'`,
          `AND sent_user_id IS NOT NULL`,
        ].join('\\s+'),
      ),
    );
    // Merged up to the slice's end; later-stamped events keep a row each.
    expect(sql).toContain(`CASE WHEN event_time > '2026-03-20T11:50:00.000Z' THEN sort_key END AS pending_key`);
    expect(sql).toContain(`'2026-03-20T10:50:00.000Z' AS slice_lo`);
    expect(sql).toContain(`'exp-1' AS experiment_id`);
    expect(sql).toContain(`'2026-03-20' AS dt`);
    expect(sql.trim().split('\n').at(-1)).toBe('GROUP BY sent_user_id, variant, is_goal, on_day, pending_key');
    for (const duckOnly of DUCK_ONLY) expect(sql, duckOnly).not.toContain(duckOnly);
    expect(sql.replace(/'[^']*'/g, "''")).not.toMatch(/:[a-z_]+/);
  });

  it('counts from the committed state plus the raw events received since the watermark, in the CTE structure of the full count', () => {
    const sql = renderResultsCountIncremental(REQUEST, SLICE.hi, GLUE);
    expect(cteNames(sql)).toEqual(['tail', 'base_rows', 'state_rows', 'summaries', 'links', 'canonical', 'resolved', 'resolved_enrolled', 'users']);
    // tail: everything received since the watermark, merged up to the run's end.
    const tail = sql.slice(0, sql.indexOf('state_rows AS ('));
    expect(tail).toContain('FROM tally.events_by_arrival');
    expect(tail).toMatch(/AND received BETWEEN '2026-03-20-11' AND '9999-12-31-23'/);
    expect(tail).toMatch(/AND dt BETWEEN '2026-03-02' AND '2026-03-20'/);
    expect(tail).toMatch(/received_at >= '2026-03-20T11:50:00\.000Z'\s+AND received_at < '9999-12-31T23:59:59\.999Z'/);
    expect(tail).toContain(`CASE WHEN event_time > '2026-03-20T12:00:00.000Z' THEN sort_key END AS pending_key`);
    // state_rows: the experiment's committed slices only, no commit markers.
    expect(sql).toMatch(
      /FROM tally\.results_state\s+WHERE project_id = 'proj-main'\s+AND experiment_id = 'exp-1'\s+AND dt BETWEEN '2026-02-28' AND '2026-03-20'\s+AND slice_hi <= '2026-03-20T11:50:00\.000Z'\s+AND sent_user_id IS NOT NULL/,
    );
    expect(sql).toMatch(/FROM tally\.identities\s+WHERE project_id = 'proj-main'\s+AND dt >= '2026-01-31'/);
    expect(sql).toContain(`WHERE s.pending_key IS NULL OR coalesce(s.first_at, s.last_at) <= '2026-03-20T12:00:00.000Z'`);
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
      ].join('\n'),
    );
  });

  it('is the text DuckDB runs, but for the table names', () => {
    const local = (sql: string) =>
      sql.replaceAll(LOCAL.events, GLUE.eventsByArrival).replaceAll(LOCAL.identities, GLUE.identities).replaceAll(LOCAL.state, GLUE.state);
    expect(local(renderResultsSummary(REQUEST, SLICE, LOCAL))).toBe(renderResultsSummary(REQUEST, SLICE, GLUE));
    expect(local(renderResultsCountIncremental(REQUEST, SLICE.hi, LOCAL))).toBe(renderResultsCountIncremental(REQUEST, SLICE.hi, GLUE));
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
          ['variant', 'on_day', 'enrolled', 'converted', 'multiple_exposures'],
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
    expect(result.days).toHaveLength(2);
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
