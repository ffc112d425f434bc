/**
 * The redrive's view of the raw bucket (bin/redrive/objects.ts s3ErrorObjects), driven through the AWS
 * SDK's S3 client with its calls recorded: every page of errors/ is listed, Firehose's GZIP objects
 * are read as text, and settling copies the original to redriven/<key> before deleting or rewriting it.
 */
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { s3ErrorObjects } from '../../bin/redrive/objects';

const T1 = new Date('2026-11-28T09:00:00Z');
const T2 = new Date('2026-11-28T10:00:00Z');
const body = (bytes: Uint8Array) => ({ transformToByteArray: async () => bytes }) as never;

describe('the raw bucket’s errors/ objects', () => {
  it('lists every page under errors/ only, skipping folder markers', async () => {
    const s3 = mockClient(S3Client);
    s3.on(ListObjectsV2Command, { Bucket: 'raw', Prefix: 'errors/', ContinuationToken: undefined })
      .resolves({
        Contents: [
          { Key: 'errors/events/a.gz', LastModified: T1 },
          { Key: 'errors/events/', LastModified: T1 },
        ],
        IsTruncated: true,
        NextContinuationToken: 't',
      })
      .on(ListObjectsV2Command, { Bucket: 'raw', Prefix: 'errors/', ContinuationToken: 't' })
      .resolves({ Contents: [{ Key: 'errors/identities/b.gz', LastModified: T2 }], IsTruncated: false });
    expect(await s3ErrorObjects(new S3Client({}), 'raw').list()).toEqual([
      { key: 'errors/events/a.gz', modified: T1 },
      { key: 'errors/identities/b.gz', modified: T2 },
    ]);
  });

  it('reads a GZIP object (the stream’s compression) and a plain one as text', async () => {
    const s3 = mockClient(S3Client);
    s3.on(GetObjectCommand, { Key: 'errors/events/a.gz' }).resolves({ Body: body(gzipSync('{"rawData":"e30="}\n')) });
    s3.on(GetObjectCommand, { Key: 'errors/events/b' }).resolves({ Body: body(Buffer.from('plain\n')) });
    const objects = s3ErrorObjects(new S3Client({}), 'raw');
    expect(await objects.read('errors/events/a.gz')).toBe('{"rawData":"e30="}\n');
    expect(await objects.read('errors/events/b')).toBe('plain\n');
  });

  it('keeps the original under redriven/ before deleting it, or before rewriting it with the lines left', async () => {
    const s3 = mockClient(S3Client);
    s3.onAnyCommand().resolves({});
    const objects = s3ErrorObjects(new S3Client({}), 'raw');
    const key = 'errors/events/partitioning-failed/dt=2026-11-28/Tally events+1.gz';
    await objects.settle(key);
    await objects.settle(key, 'left\n');
    const calls = s3.calls().map((c) => [c.args[0].constructor.name, c.args[0].input]);
    expect(calls).toEqual([
      [
        'CopyObjectCommand',
        { Bucket: 'raw', Key: `redriven/${key}`, CopySource: 'raw/errors/events/partitioning-failed/dt%3D2026-11-28/Tally%20events%2B1.gz' },
      ],
      ['DeleteObjectCommand', { Bucket: 'raw', Key: key }],
      [
        'CopyObjectCommand',
        { Bucket: 'raw', Key: `redriven/${key}`, CopySource: 'raw/errors/events/partitioning-failed/dt%3D2026-11-28/Tally%20events%2B1.gz' },
      ],
      ['PutObjectCommand', { Bucket: 'raw', Key: key, Body: 'left\n', ContentType: 'application/x-ndjson' }],
    ]);
  });
});
