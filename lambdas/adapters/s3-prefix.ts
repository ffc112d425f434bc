/**
 * Listing and deleting under an S3 prefix, for the stores that keep generations in the raw bucket
 * (s3-results-base.ts, athena-compaction.ts). ListObjectsV2 pages by ContinuationToken; with a
 * Delimiter it answers the "folders" under the prefix as CommonPrefixes
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html). DeleteObjects takes at
 * most 1,000 keys a request, which is also the most a ListObjectsV2 page holds
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html), and answers the keys it
 * could not delete in Errors: those fail the call, loudly.
 */
import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

type S3 = Pick<S3Client, 'send'>;

/** The names directly under `prefix` that end in '/', without the prefix and the slash. */
export async function listFolders(s3: S3, bucket: string, prefix: string): Promise<string[]> {
  const names: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }));
    for (const p of page.CommonPrefixes ?? []) if (p.Prefix) names.push(p.Prefix.slice(prefix.length, -1));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return names;
}

/** Deletes every object under `prefix` (`what` names it in the error); answers how many. */
export async function deletePrefix(s3: S3, bucket: string, prefix: string, what: string): Promise<number> {
  let removed = 0;
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
    if (keys.length > 0) {
      const answer = await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
      const failed = answer.Errors ?? [];
      if (failed.length > 0) throw new Error(`S3 refused to delete ${failed.length} object(s) of ${what}: ${failed[0]!.Code ?? 'no code'}`);
      removed += keys.length;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return removed;
}

/** Every object under `prefix`: its key, when it was last written and its size. */
export async function listObjects(s3: S3, bucket: string, prefix: string): Promise<Array<{ key: string; lastModified: Date | undefined; size: number }>> {
  const keys: Array<{ key: string; lastModified: Date | undefined; size: number }> = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const o of page.Contents ?? []) if (o.Key) keys.push({ key: o.Key, lastModified: o.LastModified, size: o.Size ?? 0 });
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}
