/**
 * The results job's base on S3 (issue 21; docs/decisions/incremental-results.md, "Compaction on
 * AWS"), beside what Athena writes into tally.results_base:
 *
 *   <prefix>project_id=<p>/experiment_id=<e>/generation=<g>/...   a generation's Parquet files (Athena INSERT INTO)
 *   <prefix>project_id=<p>/experiment_id=<e>/commit.json          the commit naming the generation to read (BaseCommit)
 *
 * The commit is one PutObject, written after the generation's INSERT INTO succeeded: "Amazon S3 never
 * adds partial objects; if you receive a success response, Amazon S3 added the entire object to the
 * bucket" (PutObject, https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html), and a read
 * after it sees it ("strong read-after-write consistency",
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/Welcome.html#ConsistencyModel). commit.json is
 * outside every generation=<g>/ folder, so Athena never reads it as data.
 * Superseded generations are deleted with ListObjectsV2 and DeleteObjects (at most 1,000 keys a
 * request: https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObjects.html).
 */
import { GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { RESULTS_BASE } from '../contract/results-state';
import { parseBaseCommit, type BaseCommit } from '../domain/results-base';
import { deletePrefix, listFolders } from './s3-prefix';

/** An experiment's base store: its commit and its generations (port of AthenaResultsQuery). */
export interface ResultsBaseStore {
  readCommit(projectId: string, experimentId: string): Promise<BaseCommit | undefined>;
  writeCommit(projectId: string, experimentId: string, commit: BaseCommit): Promise<void>;
  listGenerations(projectId: string, experimentId: string): Promise<string[]>;
  /** Deletes every object of the generation; answers how many. */
  deleteGeneration(projectId: string, experimentId: string, generation: string): Promise<number>;
}

/** The experiment's folder under the base prefix. IDs with a path character name no folder. */
export function experimentBasePrefix(projectId: string, experimentId: string): string {
  for (const id of [projectId, experimentId]) {
    if (id === '' || /[/\\\0]/.test(id) || id === '.' || id === '..') throw new Error(`ID "${id}" cannot name a base folder`);
  }
  return `${RESULTS_BASE.prefix}project_id=${projectId}/experiment_id=${experimentId}/`;
}

export class S3ResultsBase implements ResultsBaseStore {
  constructor(
    private readonly s3: Pick<S3Client, 'send'>,
    /** The bucket holding the base (the raw bucket, beside results-state/). */
    private readonly bucket: string,
  ) {}

  async readCommit(projectId: string, experimentId: string): Promise<BaseCommit | undefined> {
    const key = experimentBasePrefix(projectId, experimentId) + RESULTS_BASE.commit;
    try {
      const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return parseBaseCommit(await object.Body!.transformToString(), `s3://${this.bucket}/${key}`);
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw err;
    }
  }

  async writeCommit(projectId: string, experimentId: string, commit: BaseCommit): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: experimentBasePrefix(projectId, experimentId) + RESULTS_BASE.commit,
        Body: JSON.stringify(commit),
        ContentType: 'application/json',
      }),
    );
  }

  listGenerations(projectId: string, experimentId: string): Promise<string[]> {
    return listFolders(this.s3, this.bucket, `${experimentBasePrefix(projectId, experimentId)}generation=`);
  }

  async deleteGeneration(projectId: string, experimentId: string, generation: string): Promise<number> {
    if (!/^[0-9A-Za-z-]+$/.test(generation)) throw new Error(`"${generation}" is not a generation name`);
    return deletePrefix(this.s3, this.bucket, `${experimentBasePrefix(projectId, experimentId)}generation=${generation}/`, `generation ${generation}`);
  }
}
