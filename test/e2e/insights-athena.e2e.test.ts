/**
 * The insights routes on the AWS path (docs/decisions/insights.md, "On AWS"), through the local
 * server with AthenaInsightEngine on a stubbed Athena: a query that runs longer than the wait answers
 * 202 and is polled by its ID; the start carries a ClientRequestToken derived from the cache key, and
 * a second request for the same definition starts nothing; the poll reads every page of the results;
 * a failed query answers 502, emits InsightQueryFailed once, and a new POST starts it again; a
 * query expires 7 days after it started.
 */
import { expectWatchedByAlarm } from '../helpers/emf';
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  type StartQueryExecutionCommandInput,
} from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AthenaInsightEngine } from '../../lambdas/adapters/athena-insights';
import { startTestProject, type TestStack } from '../helpers/local';

const NOW = Date.parse('2026-04-15T12:34:56.789Z');
const athena = mockClient(AthenaClient);
const starts: StartQueryExecutionCommandInput[] = [];
/** Athena's state of each execution, by ID. */
const states = new Map<string, { State: string; reason?: string }>();
let stack: TestStack;
let project: string;
let now = NOW;

const header = ['series_index', 'period', 'bucket', 'breakdown_value', 'breakdown_rank', 'events', 'users', 'value_sum', 'value_count'];
const row = (values: Array<string | undefined>) => ({ Data: values.map((v) => (v === undefined ? {} : { VarCharValue: v })) });

beforeAll(async () => {
  athena.on(StartQueryExecutionCommand).callsFake((input: StartQueryExecutionCommandInput) => {
    starts.push(input);
    const id = `exec-${input.ClientRequestToken}`;
    if (!states.has(id)) states.set(id, { State: 'RUNNING' });
    return { QueryExecutionId: id };
  });
  athena.on(GetQueryExecutionCommand).callsFake((input) => {
    const s = states.get(input.QueryExecutionId)!;
    return {
      QueryExecution: {
        QueryExecutionId: input.QueryExecutionId,
        Status: { State: s.State, ...(s.reason ? { AthenaError: { ErrorMessage: s.reason } } : {}) },
        Statistics: { DataScannedInBytes: s.State === 'SUCCEEDED' ? 123_456 : 0 },
      },
    };
  });
  // Two pages: the header and the day's row, then the totals row.
  athena.on(GetQueryResultsCommand).callsFake((input) =>
    input.NextToken
      ? { ResultSet: { Rows: [row(['0', 'current', undefined, undefined, undefined, '7', '3', undefined, '0'])] } }
      : {
          NextToken: 'page-2',
          ResultSet: {
            ResultSetMetadata: { ColumnInfo: header.map((Name) => ({ Name, Type: 'varchar' })) },
            Rows: [row(header), row(['0', 'current', '2026-04-09', undefined, undefined, '7', '3', undefined, '0'])],
          },
        },
  );
  const client = new AthenaClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  ({ stack, project } = await startTestProject('insights-athena', {
    clock: () => now,
    overrides: (deps) => ({
      ...deps,
      insightEngine: new AthenaInsightEngine(client, { workGroup: 'tally-analysts', database: 'tally', arrivalAllowanceMs: 25 * 60_000 }),
      insightWaitMs: 0,
    }),
  }));
});
afterAll(async () => {
  await stack?.stop();
  athena.restore();
});

const DEFINITION = { series: [{ event: 'view' }], date_from: '2026-04-08', date_to: '2026-04-14' };
const trends = (body: unknown) => stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, body);

describe('insights on Athena', () => {
  it('answers 202 while the query runs, starts it once with a token from the cache key, and the poll returns every page once it succeeded', async () => {
    const first = await trends(DEFINITION);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const id = first.body.query_id as string;
    expect(first.body).toMatchObject({ status: 'running', cached: false, engine: 'athena', bytes_scanned: 0 });
    // The watermark: 25 minutes (the arrival allowance) before NOW, to the minute.
    expect(first.body.data_through).toBe('2026-04-15T12:09:00.000Z');
    expect(first.body.result).toBeUndefined();
    expect(first.headers.get('location')).toBe(`/admin/v1/projects/${project}/insights/queries/${id}`);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({ ClientRequestToken: id, WorkGroup: 'tally-analysts', QueryExecutionContext: { Database: 'tally' } });
    expect(starts[0]!.QueryString).toBe(first.body.sql);
    // The events view's two parts: the curated table, which the watermark filter never reads (its
    // rows were all received before it), and the landing tail, filtered by it.
    expect(first.body.sql).toMatch(/FROM tally\.curated_events\b/);
    expect(first.body.sql).toMatch(/FROM tally\.events_tail\b/);
    expect(first.body.sql.match(/received_at/g)).toHaveLength(1);
    const tail = (first.body.sql as string).slice((first.body.sql as string).indexOf('FROM tally.events_tail'));
    expect(tail.slice(0, tail.indexOf(') view_rows'))).toContain("received_at <= '2026-04-15T12:09:00.000Z'");

    // The same definition again: the query already started answers, nothing new runs on Athena.
    const again = await trends(DEFINITION);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ query_id: id, cached: true });
    expect(starts).toHaveLength(1);

    states.set(`exec-${id}`, { State: 'SUCCEEDED' });
    const polled = await stack.admin('GET', first.body.poll_url);
    expect(polled.status, JSON.stringify(polled.body)).toBe(200);
    expect(polled.body).toMatchObject({ status: 'succeeded', query_id: id, bytes_scanned: 123_456 });
    expect(polled.body.result.lines[0]).toMatchObject({ event: 'view', values: [0, 7, 0, 0, 0, 0, 0], total: 7 });
    // And the POST now answers from the cache, at once.
    const cached = await trends(DEFINITION);
    expect(cached.status).toBe(200);
    expect(cached.body).toMatchObject({ cached: true, result: polled.body.result });
    expect(starts).toHaveLength(1);
  });

  it('forgets a query 7 days after it started: its poll URL answers 404 from then on, though DynamoDB deletes by TTL only days later', async () => {
    const first = await trends({ ...DEFINITION, series: [{ event: 'signup' }] });
    expect(first.status).toBe(202);
    states.set(`exec-${first.body.query_id}`, { State: 'SUCCEEDED' });
    try {
      now = NOW + 7 * 86_400_000 - 1000;
      expect((await stack.admin('GET', first.body.poll_url)).status).toBe(200);
      now = NOW + 7 * 86_400_000;
      const gone = await stack.admin('GET', first.body.poll_url);
      expect(gone.status).toBe(404);
      expect(gone.body.error).toBe(`Insight query ${first.body.query_id} not found in project ${project} (queries are kept 7 days: POST the definition again)`);
    } finally {
      now = NOW;
    }
  });

  it('a failed query answers 502 with the reason, emits InsightQueryFailed once, and a new POST starts it again', async () => {
    const definition = { ...DEFINITION, series: [{ event: 'purchase' }] };
    const first = await trends(definition);
    expect(first.status).toBe(202);
    const id = first.body.query_id as string;
    states.set(`exec-${id}`, { State: 'FAILED', reason: 'TABLE_NOT_FOUND: Table tally.events does not exist' });
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    let polled, repolled;
    try {
      polled = await stack.admin('GET', first.body.poll_url);
      repolled = await stack.admin('GET', first.body.poll_url);
    } finally {
      write.mockRestore();
    }
    expect(polled.status).toBe(502);
    expect(polled.body.error).toMatch(/The insight query failed on athena: Athena query exec-[0-9a-f]+ FAILED: TABLE_NOT_FOUND.*POST the definition again/);
    expect(repolled.status).toBe(502);
    const metrics = lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({ InsightQueryFailed: 1, FunctionName: 'local' });
    expectWatchedByAlarm(lines.find((l) => l.includes('"_aws"'))!.trim());

    const retried = await trends(definition);
    expect(retried.status).toBe(202);
    expect(retried.body.query_id).toBe(id);
    expect(starts.at(-1)!.ClientRequestToken).toBe(`${id}-2`);
  });
});
