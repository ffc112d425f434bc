/**
 * The errors/ objects `npm run redrive` reads and settles: in the raw bucket on AWS, in the data
 * directory locally (the same keys: errors/<stream>/<error type>/dt=<day>/<object>). Settling an
 * object keeps its original under redriven/<key> (which expires, lib/raw-streams.ts) and then either
 * deletes it (every record re-sent) or replaces it with the lines that could not be re-sent.
 */
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { copyFile, mkdir, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DELIVERY_ERRORS_PREFIX, REDRIVEN_PREFIX } from '../../lambdas/contract/delivery-errors';

export interface ErrorObject {
  key: string;
  modified: Date;
}

export interface ErrorObjects {
  /** Where they are, for the first line ("s3://bucket/errors/", "<dir>/errors/"). */
  describe: string;
  /** Every object under errors/: its key and when it was last written. */
  list(): Promise<ErrorObject[]>;
  /** The object's text (Firehose's GZIP undone). */
  read(key: string): Promise<string>;
  /** Keeps the original under redriven/<key>, then deletes the object, or replaces it with `rest` (the lines left). */
  settle(key: string, rest?: string): Promise<void>;
}

/** The object's text: GZIP (the stream's compression, recognised by its magic bytes) or plain. */
export function objectText(bytes: Uint8Array): string {
  const gzip = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  return (gzip ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
}

export function s3ErrorObjects(s3: S3Client, bucket: string): ErrorObjects {
  const copySource = (key: string) => `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
  return {
    describe: `s3://${bucket}/${DELIVERY_ERRORS_PREFIX}`,
    async list() {
      const objects: ErrorObject[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: DELIVERY_ERRORS_PREFIX, ContinuationToken: token }));
        for (const o of page.Contents ?? []) if (o.Key && !o.Key.endsWith('/')) objects.push({ key: o.Key, modified: o.LastModified ?? new Date() });
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return objects;
    },
    async read(key) {
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return objectText(await out.Body!.transformToByteArray());
    },
    async settle(key, rest) {
      await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: `${REDRIVEN_PREFIX}${key}`, CopySource: copySource(key) }));
      if (rest === undefined) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      else await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: rest, ContentType: 'application/x-ndjson' }));
    },
  };
}

/** The local layout: errors/ and redriven/ in the data directory, beside events/ and identities/. */
export function localErrorObjects(dataDir: string): ErrorObjects {
  const root = join(dataDir, DELIVERY_ERRORS_PREFIX);
  const path = (key: string) => join(dataDir, ...key.split('/'));
  return {
    describe: root,
    async list() {
      const entries = await readdir(root, { withFileTypes: true, recursive: true }).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        throw err;
      });
      const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
      const objects = await Promise.all(files.map(async (f) => ({ key: relative(dataDir, f).split(sep).join('/'), modified: (await stat(f)).mtime })));
      return objects.sort((a, b) => a.key.localeCompare(b.key));
    },
    async read(key) {
      return objectText(await readFile(path(key)));
    },
    async settle(key, rest) {
      const kept = path(`${REDRIVEN_PREFIX}${key}`);
      await mkdir(dirname(kept), { recursive: true });
      await copyFile(path(key), kept);
      if (rest === undefined) await unlink(path(key));
      else await writeFile(path(key), rest);
    },
  };
}
