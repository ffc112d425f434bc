/**
 * Removes the files an Athena query wrote to its result location. A query run through the API writes
 * them straight into the workgroup's result location, each named by the query ID: `<QueryID>.csv` or
 * `<QueryID>.txt` (DDL), and `<QueryID>.csv.metadata` or `<QueryID>.txt.metadata` ("Find query output
 * files in Amazon S3", Athena user guide). So every object under `<location prefix><QueryID>` is that
 * query's, and nothing else is.
 *
 * Used by the analyst views' deploy-time custom resource (athena-analytics-views.ts): the results
 * bucket must hold nothing of a first create's when that create rolls back, or CloudFormation cannot
 * delete the bucket (docs/decisions/first-deploy-rollback.md); by the listings, whose answers name
 * people, once they have read them (AthenaResultsQuery's forgetResults); by a person's deletion.
 */
import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

/** The result files of one query, given the `s3://bucket/prefix/<QueryID>.<ext>` location GetQueryExecution reports. */
export interface QueryResultFiles {
  remove(outputLocation: string): Promise<number>;
}

/** `s3://bucket/key` → bucket and the key prefix shared by the query's files (the location without its extension). */
export function queryFilesPrefix(outputLocation: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)\/(.*)$/.exec(outputLocation);
  if (!match) throw new Error(`not an S3 location: ${outputLocation}`);
  const key = match[2]!;
  const name = key.slice(key.lastIndexOf('/') + 1);
  const dot = name.indexOf('.');
  // The query ID is the file name up to its first dot; a location with no file name removes nothing.
  if (dot <= 0) throw new Error(`not a query result file: ${outputLocation}`);
  return { bucket: match[1]!, prefix: key.slice(0, key.length - name.length) + name.slice(0, dot) };
}

export class S3QueryResultFiles implements QueryResultFiles {
  constructor(private readonly s3: Pick<S3Client, 'send'>) {}

  /** Deletes every object under the query's prefix; answers how many. */
  async remove(outputLocation: string): Promise<number> {
    const { bucket, prefix } = queryFilesPrefix(outputLocation);
    let removed = 0;
    let token: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0) {
        const answer = await this.s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
        const failed = answer.Errors ?? [];
        if (failed.length > 0) throw new Error(`S3 refused to delete ${failed.length} result file(s): ${failed[0]!.Code ?? 'no code'}`);
        removed += keys.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return removed;
  }
}
