/**
 * The retention cut on AWS (lambdas/services/cut-retention.ts over AthenaCompactionStore): Glue and S3
 * have no local runtime, so aws-sdk-client-mock answers for them, with the curated partitions as a map
 * of locations and the bucket as a map of keys. The cut lists the partitions before the boundary
 * (GetPartitions with a dt expression, paged), drops them with BatchDeletePartition (25 a call), and
 * the compaction job's retiring step deletes their files with DeleteObjects after the grace.
 */
import { AthenaClient } from '@aws-sdk/client-athena';
import { BatchDeletePartitionCommand, BatchGetPartitionCommand, GetPartitionsCommand, GlueClient } from '@aws-sdk/client-glue';
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { AthenaCompactionStore } from '../../lambdas/adapters/athena-compaction';
import { AthenaResultsQuery } from '../../lambdas/adapters/athena-results-query';
import { compactLanding } from '../../lambdas/services/compact-landing';
import { cutRetention } from '../../lambdas/services/cut-retention';

const glueMock = mockClient(GlueClient);
const s3Mock = mockClient(S3Client);
afterEach(() => {
  glueMock.reset();
  s3Mock.reset();
});

const BUCKET = 'raw';
const HOUR = 3_600_000;
const NOW = Date.parse('2026-06-02T06:00:00Z');
const location = (project: string, dt: string) => `s3://${BUCKET}/curated/events/project_id=${project}/dt=${dt}/generation=g-${dt}/`;

function world() {
  const partitions = new Map<string, string>();
  const objects = new Map<string, string>();
  // 30 old days of one project (2026-01-01 .. 2026-01-30) and two kept ones.
  const days = [...Array.from({ length: 30 }, (_, i) => `2026-01-${String(i + 1).padStart(2, '0')}`), '2026-03-04', '2026-05-30'];
  for (const dt of days) {
    partitions.set(`p1/${dt}`, location('p1', dt));
    objects.set(`curated/events/project_id=p1/dt=${dt}/generation=g-${dt}/part-0.parquet`, 'x');
  }
  const expressions: string[] = [];
  glueMock.on(GetPartitionsCommand).callsFake((input: { TableName: string; Expression: string; NextToken?: string }) => {
    expressions.push(`${input.TableName}: ${input.Expression}`);
    const bound = /^dt < '(\d{4}-\d{2}-\d{2})'$/.exec(input.Expression)![1]!;
    const all = input.TableName === 'curated_events' ? [...partitions.keys()].map((k) => k.split('/')).filter(([, dt]) => dt! < bound) : [];
    // Pages of 20, as Glue pages its answer.
    const start = Number(input.NextToken ?? 0);
    return {
      Partitions: all.slice(start, start + 20).map((values) => ({ Values: values })),
      ...(start + 20 < all.length ? { NextToken: String(start + 20) } : {}),
    };
  });
  glueMock.on(BatchGetPartitionCommand).callsFake((input: { PartitionsToGet: Array<{ Values: string[] }> }) => ({
    Partitions: input.PartitionsToGet.flatMap((p) => {
      const at = partitions.get(p.Values.join('/'));
      return at ? [{ Values: p.Values, StorageDescriptor: { Location: at } }] : [];
    }),
  }));
  const deleteCalls: number[] = [];
  glueMock.on(BatchDeletePartitionCommand).callsFake((input: { TableName: string; PartitionsToDelete: Array<{ Values: string[] }> }) => {
    expect(input.TableName).toBe('curated_events');
    deleteCalls.push(input.PartitionsToDelete.length);
    for (const p of input.PartitionsToDelete) partitions.delete(p.Values.join('/'));
    return { Errors: [] };
  });
  s3Mock.on(GetObjectCommand).callsFake((input: { Key: string }) => {
    const body = objects.get(input.Key);
    if (body === undefined) throw new NoSuchKey({ message: 'no such key', $metadata: {} });
    return { Body: { transformToString: async () => body } };
  });
  s3Mock.on(PutObjectCommand).callsFake((input: { Key: string; Body: string }) => {
    objects.set(input.Key, input.Body);
    return {};
  });
  s3Mock.on(ListObjectsV2Command).callsFake((input: { Prefix: string; Delimiter?: string }) => {
    const keys = [...objects.keys()].filter((k) => k.startsWith(input.Prefix));
    if (input.Delimiter)
      return {
        CommonPrefixes: [...new Set(keys.map((k) => k.slice(0, k.indexOf('/', input.Prefix.length) + 1)).filter((p) => p.length > input.Prefix.length))].map(
          (Prefix) => ({ Prefix }),
        ),
      };
    return { Contents: keys.map((Key) => ({ Key, Size: 1 })) };
  });
  s3Mock.on(DeleteObjectsCommand).callsFake((input: { Delete: { Objects: Array<{ Key: string }> } }) => {
    for (const o of input.Delete.Objects) objects.delete(o.Key);
    return { Errors: [] };
  });
  const store = new AthenaCompactionStore(
    new AthenaResultsQuery(new AthenaClient({ region: 'eu-west-1' }), { workGroup: 'tally', database: 'tally', pollMs: 1 }),
    new S3Client({ region: 'eu-west-1' }),
    new GlueClient({ region: 'eu-west-1' }),
    { database: 'tally', bucket: BUCKET },
  );
  return { store, partitions, objects, expressions, deleteCalls };
}

describe('retention cut on AWS', () => {
  it('drops the partitions before the boundary with BatchDeletePartition and deletes their files with DeleteObjects after the grace', async () => {
    const w = world();
    const cuts = await cutRetention(w.store, { nowMs: NOW, keepDays: 90, graceMs: 4 * HOUR });
    expect(cuts).toEqual([{ stream: 'events', keptFrom: '2026-03-04', partitions: 30, days: 30 }]);
    expect(w.expressions).toEqual(["curated_events: dt < '2026-03-04'", "curated_events: dt < '2026-03-04'"]);
    expect(w.deleteCalls).toEqual([25, 5]);
    expect([...w.partitions.keys()]).toEqual(['p1/2026-03-04', 'p1/2026-05-30']);
    // Readers no longer see them; the files stay through the grace (a query planned before may read them).
    expect([...w.objects.keys()].filter((k) => k.includes('dt=2026-01-')).length).toBe(30);

    await compactLanding(w.store, { nowMs: NOW + 5 * HOUR, closeAfterMs: HOUR, maxHours: 48, graceMs: 4 * HOUR, landingRetentionMs: 72 * HOUR });
    expect([...w.objects.keys()].filter((k) => k.includes('dt=2026-01-'))).toEqual([]);
    expect([...w.objects.keys()].filter((k) => k.endsWith('.parquet')).sort()).toEqual([
      'curated/events/project_id=p1/dt=2026-03-04/generation=g-2026-03-04/part-0.parquet',
      'curated/events/project_id=p1/dt=2026-05-30/generation=g-2026-05-30/part-0.parquet',
    ]);
    expect(s3Mock.commandCalls(DeleteObjectsCommand)).toHaveLength(30);
  });

  it('a partition Glue refuses to delete fails the cut, loudly', async () => {
    const w = world();
    glueMock
      .on(BatchDeletePartitionCommand)
      .resolves({ Errors: [{ PartitionValues: ['p1', '2026-01-01'], ErrorDetail: { ErrorCode: 'InternalServiceException' } }] });
    await expect(cutRetention(w.store, { nowMs: NOW, keepDays: 90, graceMs: 4 * HOUR })).rejects.toThrow(
      'Glue did not delete 1 partition(s) of curated_events: InternalServiceException',
    );
  });
});
