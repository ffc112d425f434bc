/**
 * A person's deletion on AWS, S3 side (lambdas/adapters/athena-compaction.ts, PersonFiles): a landing
 * object holding the person's lines is written back whole, still gzip, without them; an object without
 * them is not written; the results state and base of the project are deleted by prefix.
 */
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { AthenaCompactionStore } from '../../lambdas/adapters/athena-compaction';

const s3Mock = mockClient(S3Client);
afterEach(() => s3Mock.reset());

const line = (row: Record<string, unknown>) => JSON.stringify(row);
const event = (sent: string, project = 'p', received = '2026-03-20T10:00:00.000Z') =>
  line({ project_id: project, name: 'view', user_id: sent, sent_user_id: sent, received_at: received });

function store() {
  return new AthenaCompactionStore({ run: async () => ({ rows: [] }) } as never, new S3Client({ region: 'eu-west-1' }), { send: async () => ({}) } as never, {
    database: 'tally',
    bucket: 'raw',
  });
}

describe('erasing a person from the landing objects on S3', () => {
  it("writes back only the objects holding the person's lines, gzip, without them (other projects, other people and later lines kept)", async () => {
    const objects = new Map<string, Buffer>([
      [
        'landing/events/arrival_hour=2026-03-20-10/a.gz',
        gzipSync([event('ann'), event('bob'), event('ann', 'other-project'), event('ann', 'p', '2026-03-20T13:00:00.000Z'), 'not json', ''].join('\n')),
      ],
      ['landing/events/arrival_hour=2026-03-20-11/b.gz', gzipSync([event('bob'), ''].join('\n'))],
    ]);
    s3Mock.on(ListObjectsV2Command).callsFake((input: { Prefix: string }) => ({
      Contents: [...objects.keys()].filter((k) => k.startsWith(input.Prefix)).map((Key) => ({ Key })),
      IsTruncated: false,
    }));
    s3Mock
      .on(GetObjectCommand)
      .callsFake((input: { Key: string }) => ({ Body: { transformToByteArray: async () => new Uint8Array(objects.get(input.Key)!) } }));
    s3Mock.on(PutObjectCommand).callsFake((input: { Key: string; Body: Buffer }) => {
      objects.set(input.Key, input.Body);
      return {};
    });

    const removed = await store().eraseLanding('events', 'p', ['ann', 'ann-phone'], '2026-03-20T12:00:00.000Z');
    expect(removed).toBe(1);
    const puts = s3Mock.commandCalls(PutObjectCommand).map((c) => c.args[0].input.Key);
    expect(puts).toEqual(['landing/events/arrival_hour=2026-03-20-10/a.gz']);
    expect(gunzipSync(objects.get('landing/events/arrival_hour=2026-03-20-10/a.gz')!).toString('utf8').split('\n')).toEqual([
      event('bob'),
      event('ann', 'other-project'),
      event('ann', 'p', '2026-03-20T13:00:00.000Z'),
      'not json',
      '',
    ]);
    // Run again: nothing of the person left, nothing written.
    s3Mock.resetHistory();
    expect(await store().eraseLanding('events', 'p', ['ann', 'ann-phone'], '2026-03-20T12:00:00.000Z')).toBe(0);
    expect(s3Mock.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it('a sweep reads only the objects written since the last one (LastModified)', async () => {
    s3Mock.on(ListObjectsV2Command).resolves({
      Contents: [
        { Key: 'landing/events/arrival_hour=2026-03-20-10/old.gz', LastModified: new Date('2026-03-20T10:59:00Z') },
        { Key: 'landing/events/arrival_hour=2026-03-20-12/new.gz', LastModified: new Date('2026-03-20T13:00:00Z') },
      ],
      IsTruncated: false,
    });
    s3Mock.on(GetObjectCommand).resolves({ Body: { transformToByteArray: async () => new Uint8Array(gzipSync(event('ann') + '\n')) } } as never);
    s3Mock.on(PutObjectCommand).resolves({});
    expect(await store().eraseLanding('events', 'p', ['ann'], '2026-03-20T12:00:00.000Z', '2026-03-20T11:00:00.000Z')).toBe(1);
    expect(s3Mock.commandCalls(GetObjectCommand).map((c) => c.args[0].input.Key)).toEqual(['landing/events/arrival_hour=2026-03-20-12/new.gz']);
  });

  it("deletes the project's results state and base, and nothing of another project", async () => {
    s3Mock.on(ListObjectsV2Command).callsFake((input: { Prefix: string }) => ({
      Contents: [`${input.Prefix}experiment_id=e/dt=2026-03-20/slice.parquet`].map((Key) => ({ Key })),
      IsTruncated: false,
    }));
    s3Mock.on(DeleteObjectsCommand).resolves({});
    expect(await store().dropResultsState('p')).toBe(2);
    expect(s3Mock.commandCalls(ListObjectsV2Command).map((c) => c.args[0].input.Prefix)).toEqual(['results-state/project_id=p/', 'results-base/project_id=p/']);
  });

  it("deletes the result files of the project's cached insight queries, of its own query listing the person's links, and of an export's queries", async () => {
    const removed: string[] = [];
    const queryResults = {
      locationOf: async (id: string) => (id === 'gone' ? undefined : `s3://results/athena/${id}.csv`),
      remove: async (location: string) => {
        removed.push(location);
        return 2;
      },
    };
    const run = async () => ({
      rows: [{ id: 'ann-phone', canonical_id: 'ann' }],
      execution: { ResultConfiguration: { OutputLocation: 's3://results/athena/links-query.csv' } },
    });
    const withResults = new AthenaCompactionStore({ run } as never, new S3Client({ region: 'eu-west-1' }), { send: async () => ({}) } as never, {
      database: 'tally',
      bucket: 'raw',
      queryResults,
    });
    expect(await withResults.dropQueryResults(['q1', 'gone', 'q2'])).toBe(4);
    expect(await withResults.linksOf('p', ['ann'])).toEqual([{ id: 'ann-phone', canonical_id: 'ann' }]);
    expect(removed).toEqual(['s3://results/athena/q1.csv', 's3://results/athena/q2.csv', 's3://results/athena/links-query.csv']);
    // An export's two queries (events, identity links) hold the person's rows: their files go once read too.
    removed.length = 0;
    await withResults.rowsOf('p', { ids: ['ann'], through: '2026-03-20T12:00:00.000Z' });
    expect(removed).toEqual(['s3://results/athena/links-query.csv', 's3://results/athena/links-query.csv']);
    // Built without access to the result files, it fails loudly rather than report them deleted.
    await expect(store().dropQueryResults(['q1'])).rejects.toThrow(/without access to Athena result files/);
  });
});
