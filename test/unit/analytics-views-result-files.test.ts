/**
 * The analyst views' statements leave nothing in the Athena results bucket: after CREATE VIEW and DROP
 * VIEW, succeeded or failed, the files Athena wrote for them (`<QueryID>.txt` and its `.metadata`) are
 * deleted, so a first create that rolls back finds the bucket empty and CloudFormation can delete it
 * (docs/decisions/first-deploy-rollback.md). Athena and S3 have no local runtime: aws-sdk-client-mock
 * answers for both, with a bucket kept as a set of keys, listed one key a page.
 */
import { AthenaClient, GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand, type QueryExecutionState } from '@aws-sdk/client-athena';
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { AthenaAnalyticsViews } from '../../lambdas/adapters/athena-analytics-views';
import { AthenaRecentEvents } from '../../lambdas/adapters/athena-recent-events';
import { AthenaRecentUsers } from '../../lambdas/adapters/athena-recent-users';
import { AthenaResultsQuery } from '../../lambdas/adapters/athena-results-query';
import { queryFilesPrefix, S3QueryResultFiles } from '../../lambdas/adapters/s3-query-result-files';

const athenaMock = mockClient(AthenaClient);
const s3Mock = mockClient(S3Client);
afterEach(() => {
  athenaMock.reset();
  s3Mock.reset();
});

/** Athena writing each statement's files into the bucket, and S3 listing (a key a page, to page) and deleting them. */
function world(options: { state?: QueryExecutionState; refuseDelete?: boolean } = {}) {
  const bucket = new Set<string>(['results/someone-elses-query.csv', 'results/someone-elses-query.csv.metadata', 'state/part-0.json']);
  let n = 0;
  athenaMock.on(StartQueryExecutionCommand).callsFake(() => {
    const id = `q${++n}`;
    bucket.add(`results/${id}.txt`);
    bucket.add(`results/${id}.txt.metadata`);
    return { QueryExecutionId: id };
  });
  athenaMock.on(GetQueryExecutionCommand).callsFake((input: { QueryExecutionId: string }) => ({
    QueryExecution: {
      QueryExecutionId: input.QueryExecutionId,
      Status: { State: options.state ?? 'SUCCEEDED', StateChangeReason: 'line 1:8: mismatched input' },
      ResultConfiguration: { OutputLocation: `s3://tally-results/results/${input.QueryExecutionId}.txt` },
    },
  }));
  athenaMock.on(GetQueryResultsCommand).resolves({ ResultSet: { Rows: [], ResultSetMetadata: { ColumnInfo: [] } } });
  s3Mock.on(ListObjectsV2Command).callsFake((input: { Bucket: string; Prefix: string; ContinuationToken?: string }) => {
    // The continuation token is where the listing stopped (S3's is opaque; a key works as one here).
    const keys = [...bucket].filter((k) => input.Bucket === 'tally-results' && k.startsWith(input.Prefix) && k > (input.ContinuationToken ?? '')).sort();
    const page = keys.slice(0, 1);
    const more = keys.length > 1;
    return { Contents: page.map((Key) => ({ Key })), IsTruncated: more, NextContinuationToken: more ? page[0] : undefined };
  });
  s3Mock.on(DeleteObjectsCommand).callsFake((input: { Delete: { Objects: Array<{ Key: string }> } }) => {
    if (options.refuseDelete) return { Errors: input.Delete.Objects.map((o) => ({ Key: o.Key, Code: 'AccessDenied' })) };
    for (const o of input.Delete.Objects) bucket.delete(o.Key);
    return {};
  });
  const views = new AthenaAnalyticsViews(
    new AthenaResultsQuery(new AthenaClient({ region: 'eu-west-1' }), { workGroup: 'tally', database: 'tally', pollMs: 1 }),
    { database: 'tally', maxWaitMs: 60_000 },
    new S3QueryResultFiles(new S3Client({ region: 'eu-west-1' })),
    async () => ({ compactedThrough: undefined, retiring: [] }),
  );
  return { bucket, views };
}

const othersOnly = ['results/someone-elses-query.csv', 'results/someone-elses-query.csv.metadata', 'state/part-0.json'];

describe('the analyst views leave no result files behind', () => {
  it('deletes the files of CREATE VIEW and of DROP VIEW, and nothing else in the bucket', async () => {
    const { bucket, views } = world();
    await views.create();
    expect([...bucket].sort()).toEqual(othersOnly);
    await views.drop();
    expect([...bucket].sort()).toEqual(othersOnly);
  });

  it('deletes the files of a statement Athena refused, and still fails with Athena’s reason', async () => {
    const { bucket, views } = world({ state: 'FAILED' });
    await expect(views.create()).rejects.toThrow(/FAILED: line 1:8: mismatched input/);
    expect([...bucket].sort()).toEqual(othersOnly);
  });

  it('makes the view even when S3 refuses the deletion (the files then stay, and the log says so)', async () => {
    const { bucket, views } = world({ refuseDelete: true });
    await expect(views.create()).resolves.toBeUndefined();
    // One statement per view: events, identities, events_tail, unique_events, events_by_arrival.
    const left = ['q1', 'q2', 'q3', 'q4', 'q5'].flatMap((q) => [`results/${q}.txt`, `results/${q}.txt.metadata`]);
    expect([...bucket].sort()).toEqual([...othersOnly, ...left].sort());
  });
});

describe('the listings leave no result files naming people', () => {
  /** The listings as lambdas/entry/athena.ts wires them: their runner deletes each query's files once read. */
  const listings = () => {
    const runner = new AthenaResultsQuery(new AthenaClient({ region: 'eu-west-1' }), {
      workGroup: 'tally',
      database: 'tally',
      pollMs: 1,
      forgetResults: new S3QueryResultFiles(new S3Client({ region: 'eu-west-1' })),
    });
    return {
      events: new AthenaRecentEvents(runner, { windowDays: 7, maxWaitMs: 60_000 }),
      users: new AthenaRecentUsers(runner, { windowDays: 7, maxWaitMs: 60_000 }),
    };
  };
  const now = Date.parse('2026-03-20T12:00:00.000Z');

  it('deletes the files of the people and events listings once read, and nothing else in the bucket', async () => {
    const { bucket } = world();
    const { events, users } = listings();
    await users.recent('proj-main', { limit: 50, search: 'ann@example.com' }, now);
    await events.recent('proj-main', { limit: 50, userIds: ['ann'] }, now);
    await events.names('', 100, now);
    expect([...bucket].sort()).toEqual(othersOnly);
  });

  it('fails the listing when S3 refuses the deletion (a 5xx the alarms see, not a file left silently)', async () => {
    const { bucket } = world({ refuseDelete: true });
    await expect(listings().users.recent('proj-main', { limit: 50 }, now)).rejects.toThrow(/S3 refused to delete \d+ result file\(s\): AccessDenied/);
    expect(bucket.has('results/q1.txt')).toBe(true);
  });

  it('keeps the files of a runner built without forgetResults (the results job’s counts name no one)', async () => {
    const { bucket } = world();
    const runner = new AthenaResultsQuery(new AthenaClient({ region: 'eu-west-1' }), { workGroup: 'tally', database: 'tally', pollMs: 1 });
    await new AthenaRecentUsers(runner, { windowDays: 7, maxWaitMs: 60_000 }).recent('proj-main', { limit: 50 }, now);
    expect(bucket.has('results/q1.txt')).toBe(true);
  });
});

describe('queryFilesPrefix', () => {
  it('takes the query ID from the result location: every file of that query, and no other, starts with it', () => {
    expect(queryFilesPrefix('s3://tally-results/results/1a2b-3c.txt')).toEqual({ bucket: 'tally-results', prefix: 'results/1a2b-3c' });
    expect(queryFilesPrefix('s3://b/1a2b.csv')).toEqual({ bucket: 'b', prefix: '1a2b' });
    expect(() => queryFilesPrefix('s3://b/results/')).toThrow(/not a query result file/);
    expect(() => queryFilesPrefix('https://b/x.csv')).toThrow(/not an S3 location/);
  });
});
