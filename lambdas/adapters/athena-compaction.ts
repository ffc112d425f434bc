/**
 * The compaction job's store on AWS (ports/compaction-store.ts; docs/decisions/columnar-events.md,
 * "On AWS"), running the texts of sql/compaction.ts:
 *
 * - landing hours: S3 ListObjectsV2 with Delimiter '/' under landing/<stream>/arrival_hour=;
 * - the state: one S3 object per stream, curated/_compaction/<stream>.json (GetObject, PutObject:
 *   "Amazon S3 never adds partial objects", API_PutObject), so a reader sees the old state or the new;
 * - partitionsOf: Athena over landing_<stream> (arrival_hour projected, so only those hours are listed);
 * - writeGeneration: Athena `UNLOAD (...) TO '<staging>' WITH (partitioned_by = ARRAY['project_id', 'dt'])`,
 *   then each file its data manifest lists copied into generation=<g>/ of its partition (unloadGeneration), which no reader
 *   reads until it is committed (at most 100 partitions per statement: the batches);
 * - currentGenerations / commit: the Glue partitions of curated_<stream> (BatchGetPartition,
 *   BatchCreatePartition, BatchUpdatePartition): a partition's location names the generation it is
 *   read at, and Athena reads partition locations when it plans a query, so a query sees one
 *   generation or the next;
 * - publishViews: CREATE OR REPLACE VIEW of events, identities, unique_events and events_by_arrival
 *   (viewStatements, also run at deploy by athena-analytics-views.ts);
 * - deletions: DeleteObjects under a generation's or a landing hour's prefix;
 * - a person's deletion (ports/deletion-store.ts PersonFiles; docs/decisions/erasure.md): the texts of
 *   sql/erasure.ts on Athena (links, the partitions holding the person, a generation without them,
 *   written like compaction's), landing objects read and written back whole without the person's lines
 *   (GetObject, PutObject: S3 never adds a partial object, and Firehose never appends to an object), the
 *   results state and base of the project deleted by prefix.
 */
import type { QueryExecution } from '@aws-sdk/client-athena';
import type { GlueClient, PartitionInput, StorageDescriptor } from '@aws-sdk/client-glue';
import {
  BatchCreatePartitionCommand,
  BatchDeletePartitionCommand,
  BatchGetPartitionCommand,
  BatchUpdatePartitionCommand,
  GetPartitionsCommand,
  GetTableCommand,
} from '@aws-sdk/client-glue';
import { CopyObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { gunzipSync, gzipSync } from 'node:zlib';
import { RESULTS_BASE, RESULTS_STATE } from '../contract/results-state';
import type { IdLink } from '../domain/person-ids';
import { isPersonLine } from '../domain/person-rows';
import { READER_VIEWS, UNIQUE_EVENTS_VIEW } from '../contract/analytics-views';
import {
  ARRIVAL_HOUR,
  compactionStateKey,
  curatedTable,
  curatedStagingPrefix,
  CURATED_ZSTD_LEVEL,
  EVENTS_BY_ARRIVAL_VIEW,
  EVENTS_TAIL_VIEW,
  generationPrefix,
  isLandingHour,
  landingHourPrefix,
  landingPrefix,
  landingTable,
  STREAM_NAMES,
  streamView,
  type StreamName,
} from '../contract/landing';
import { EMPTY_COMPACTION_STATE, parseCompactionState, serializeCompactionState } from '../domain/compaction-state';
import { MAX_PARTITIONS_PER_WRITE, type CuratedPartition } from '../domain/partition-batches';
import type { PersonRecordsFound } from '../domain/person-export';
import {
  partitionKey,
  type CompactionState,
  type CompactionStore,
  type PersonFiles,
  type PersonStreamRows,
  type RetentionStore,
  type RetiringGeneration,
  type WrittenGeneration,
} from '../ports';
import type { AthenaResultsQuery } from './athena-results-query';
import { deletePrefix, listFolders, listObjects } from './s3-prefix';
import { renderPersonLinks, renderPersonPartitions, renderWithoutPerson } from './sql/erasure';
import { renderPersonExport } from './sql/person-export';
import { renderCompact, renderCompactPartitions, renderEventsByArrivalView, renderEventsTailView, renderStreamView } from './sql/compaction';
import { tableRef } from './sql/render';
import { renderCreateUniqueEventsView } from './sql/unique-events';

export interface AthenaCompactionOptions {
  /** The Glue database of the tables and views. */
  database: string;
  /** The raw bucket: landing/ and curated/. */
  bucket: string;
  /**
   * Athena's result files of a query, for a person's deletion: those of the cached insight queries of
   * the project, and those of its own query that lists the person's identity links.
   */
  queryResults?: {
    /** Where an execution wrote its result files (GetQueryExecution's OutputLocation). */
    locationOf(executionId: string): Promise<string | undefined>;
    /** Deletes the result files at a location (s3-query-result-files.ts); how many. */
    remove(outputLocation: string): Promise<number>;
  };
}

/** Glue's batch partition calls take at most this many partitions (BatchCreatePartition, BatchUpdatePartition: 100; BatchGetPartition: 1,000). */
const GLUE_WRITE_BATCH = 100;
const GLUE_GET_BATCH = 1000;
/** BatchDeletePartition takes at most 25 partitions (PartitionsToDelete, Glue API reference). */
const GLUE_DELETE_BATCH = 25;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** BatchGetPartition answers UnprocessedKeys under throttling: asked again this many times, then the run fails. */
const UNPROCESSED_RETRIES = 5;
const GENERATION_NAME = /^[0-9A-Za-z-]+$/;

/** The statements that (re)create the readers' views in `database`, each stream's tail after its compacted hour. */
export function viewStatements(database: string, compactedThrough: Record<StreamName, string | undefined>): string[] {
  const q = (name: string) => `${database}.${name}`;
  const tables = (stream: StreamName) => ({ curated: q(curatedTable(stream)), landing: q(landingTable(stream)) });
  const create = (view: string, sql: string) => `CREATE OR REPLACE VIEW ${tableRef(q(view))} AS\n${sql}`;
  return [
    ...STREAM_NAMES.map((stream) => create(streamView(stream), renderStreamView(stream, compactedThrough[stream], tables(stream)))),
    create(EVENTS_TAIL_VIEW, renderEventsTailView(compactedThrough.events, tables('events'))),
    renderCreateUniqueEventsView(q(UNIQUE_EVENTS_VIEW), q(streamView('events'))),
    create(EVENTS_BY_ARRIVAL_VIEW, renderEventsByArrivalView({ landing: q(landingTable('events')) })),
  ];
}

/** The views viewStatements creates, in its order, for DROP VIEW. */
export const VIEW_NAMES = READER_VIEWS;

/** A stream's compaction state in S3 (shared with the deploy's views, which read the bound). */
export async function readCompactionStateObject(s3: Pick<S3Client, 'send'>, bucket: string, stream: StreamName): Promise<CompactionState> {
  const key = compactionStateKey(stream);
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return parseCompactionState(await object.Body!.transformToString(), `s3://${bucket}/${key}`);
  } catch (err) {
    if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return EMPTY_COMPACTION_STATE;
    throw err;
  }
}

export class AthenaCompactionStore implements CompactionStore, RetentionStore, PersonFiles, PersonStreamRows {
  /** "The maximum number of partitions that can be used with UNLOAD is 100" (UNLOAD, Athena user guide). */
  readonly maxPartitionsPerWrite = MAX_PARTITIONS_PER_WRITE;
  private readonly storage = new Map<StreamName, Promise<StorageDescriptor>>();

  constructor(
    private readonly athena: Pick<AthenaResultsQuery, 'run'>,
    private readonly s3: Pick<S3Client, 'send'>,
    private readonly glue: Pick<GlueClient, 'send'>,
    private readonly options: AthenaCompactionOptions,
    /** Athena statements stop at this time (the run's deadline). */
    private readonly deadlineMs = Infinity,
  ) {}

  private table(name: string): string {
    return `${this.options.database}.${name}`;
  }

  async landingHours(stream: StreamName): Promise<string[]> {
    const folders = await listFolders(this.s3, this.options.bucket, `${landingPrefix(stream)}${ARRIVAL_HOUR}=`);
    return folders.filter(isLandingHour).sort();
  }

  readState(stream: StreamName): Promise<CompactionState> {
    return readCompactionStateObject(this.s3, this.options.bucket, stream);
  }

  async writeState(stream: StreamName, state: CompactionState): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: compactionStateKey(stream),
        Body: serializeCompactionState(state),
        ContentType: 'application/json',
      }),
    );
  }

  async partitionsOf(stream: StreamName, hours: readonly string[]): Promise<CuratedPartition[]> {
    if (hours.length === 0) return [];
    const { rows } = await this.athena.run(renderCompactPartitions(hours, { landing: this.table(landingTable(stream)) }), this.deadlineMs);
    return rows.map((r) => ({ projectId: r.project_id ?? '', dt: r.dt ?? '' })).filter((p) => p.projectId !== '' && p.dt !== '');
  }

  async currentGenerations(stream: StreamName, partitions: readonly CuratedPartition[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let i = 0; i < partitions.length; i += GLUE_GET_BATCH) {
      let wanted = partitions.slice(i, i + GLUE_GET_BATCH).map((p) => ({ Values: [p.projectId, p.dt] }));
      for (let attempt = 0; wanted.length > 0; attempt++) {
        if (attempt > UNPROCESSED_RETRIES)
          throw new Error(`Glue left ${wanted.length} partition(s) of ${curatedTable(stream)} unprocessed after ${UNPROCESSED_RETRIES} retries`);
        const answer = await this.glue.send(
          new BatchGetPartitionCommand({ DatabaseName: this.options.database, TableName: curatedTable(stream), PartitionsToGet: wanted }),
        );
        for (const partition of answer.Partitions ?? []) {
          const [projectId, dt] = partition.Values ?? [];
          const generation = generationOf(partition.StorageDescriptor?.Location);
          if (projectId !== undefined && dt !== undefined && generation !== undefined) found.set(partitionKey({ projectId, dt }), generation);
        }
        wanted = (answer.UnprocessedKeys ?? []).map((k) => ({ Values: k.Values ?? [] }));
      }
    }
    return found;
  }

  async writeGeneration(stream: StreamName, batch: readonly CuratedPartition[], hours: readonly string[], generation: string): Promise<WrittenGeneration> {
    const tables = { curated: this.table(curatedTable(stream)), landing: this.table(landingTable(stream)) };
    return this.unloadGeneration(stream, batch, renderCompact(stream, batch, hours, tables), generation);
  }

  /**
   * Writes `rows` (the data columns, then project_id and dt, sorted) as `generation` of each partition
   * of the batch, as the local path does (duckdb-compaction.ts): Athena's UNLOAD … partitioned_by into
   * the staging prefix, whose folders project_id=<id>/dt=<day>/ each file is then copied from into its
   * partition's generation=<g>/ folder, and the staging prefix deleted. UNLOAD, not INSERT INTO: Athena
   * documents that UNLOAD keeps a query's sort within each file ("If the SELECT query in the UNLOAD
   * statement specifies a sort order, each file's contents are in sorted order", UNLOAD, Athena user
   * guide) and takes a ZSTD level (compression_level); the sort is what makes the timestamps small
   * (docs/decisions/columnar-events.md, "On AWS, as built").
   *
   * Only the files the query's data manifest lists are copied: "Athena generates a metadata file and
   * data manifest file for each UNLOAD query. The manifest tracks the files that the query wrote"
   * (UNLOAD, Athena user guide; its location is the execution's Statistics.DataManifestLocation, one
   * S3 URI a line). Athena retries a query on some transient errors ("you may see the query state
   * transition from RUNNING or FAILED to QUEUED", QueryExecutionStatus, Athena API reference) and
   * deletes no orphaned data ("In the case of a failure, Athena does not attempt to delete orphaned
   * data", UNLOAD), and a partitioned UNLOAD may write where data already is ("Except when writing to
   * partitions, the TO destination must specify a location in Amazon S3 that has no data"): a file an
   * earlier attempt left in the destination holds rows the last attempt wrote again, so copying every
   * file found would commit them twice. Such files are left to the staging prefix's deletion. No
   * manifest, or a manifest naming a file that is not in the destination or is outside the batch's
   * folders, fails the run with nothing copied or committed. The destination is a new generation's folder, in a
   * staging prefix every run clears as it starts (clearStaging). UNLOAD reports no row count.
   */
  private async unloadGeneration(stream: StreamName, batch: readonly CuratedPartition[], rows: string, generation: string): Promise<WrittenGeneration> {
    checkGeneration(generation);
    const to = `${curatedStagingPrefix(stream)}${generation}/`;
    const { execution } = await this.athena.run(
      `UNLOAD (\n${rows}\n)\nTO 's3://${this.options.bucket}/${to}'\nWITH (format = 'PARQUET', compression = 'ZSTD', compression_level = ${CURATED_ZSTD_LEVEL}, partitioned_by = ARRAY['project_id', 'dt'])`,
      this.deadlineMs,
    );
    const wanted = new Set(batch.map(partitionKey));
    const found = new Map((await listObjects(this.s3, this.options.bucket, to)).map((o) => [o.key, o.size]));
    // Every listed file checked before the first copy: a run that fails here copied nothing.
    const moves = (await this.manifestKeys(execution, to)).map((key) => {
      const folders = /^project_id=([^/]+)\/dt=(\d{4}-\d{2}-\d{2})\/([^/]+)$/.exec(key.slice(to.length));
      const partition = folders ? { projectId: decodeURIComponent(folders[1]!), dt: folders[2]! } : undefined;
      if (!partition || !wanted.has(partitionKey(partition)))
        throw new Error(`UNLOAD wrote ${key}, which is not under project_id=<a project of the batch>/dt=<day>/: nothing was committed`);
      const size = found.get(key);
      if (size === undefined) throw new Error(`UNLOAD's data manifest lists ${key}, which is not in its destination: nothing was committed`);
      return { key, size, to: `${generationPrefix(stream, partition.projectId, partition.dt, generation)}${folders![3]}` };
    });
    for (const move of moves) {
      await this.s3.send(
        new CopyObjectCommand({
          Bucket: this.options.bucket,
          CopySource: `${this.options.bucket}/${move.key.split('/').map(encodeURIComponent).join('/')}`,
          Key: move.to,
        }),
      );
    }
    const files = moves.length;
    const bytes = moves.reduce((sum, move) => sum + move.size, 0);
    await deletePrefix(this.s3, this.options.bucket, to, `${stream}'s staging`);
    return { files, bytes };
  }

  /** The keys an UNLOAD's data manifest lists (each under `to` in the raw bucket, or the run fails). */
  private async manifestKeys(execution: QueryExecution, to: string): Promise<string[]> {
    const location = execution.Statistics?.DataManifestLocation;
    const manifest = location ? /^s3:\/\/([^/]+)\/(.+)$/.exec(location) : null;
    if (!manifest)
      throw new Error(`UNLOAD ${execution.QueryExecutionId ?? ''} reported no data manifest (Statistics.DataManifestLocation): nothing was committed`);
    const object = await this.s3.send(new GetObjectCommand({ Bucket: manifest[1], Key: manifest[2] }));
    const prefix = `s3://${this.options.bucket}/${to}`;
    return (await object.Body!.transformToString())
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .map((line) => {
        if (!line.startsWith(prefix)) throw new Error(`UNLOAD's data manifest lists ${line}, outside its destination ${prefix}: nothing was committed`);
        return `${to}${line.slice(prefix.length)}`;
      });
  }

  async commit(stream: StreamName, batch: readonly CuratedPartition[], generation: string): Promise<void> {
    checkGeneration(generation);
    const storage = await this.storageOf(stream);
    const input = (p: CuratedPartition): PartitionInput => ({
      Values: [p.projectId, p.dt],
      StorageDescriptor: { ...storage, Location: `s3://${this.options.bucket}/${generationPrefix(stream, p.projectId, p.dt, generation)}` },
    });
    const current = await this.currentGenerations(stream, batch);
    const existing = batch.filter((p) => current.has(partitionKey(p)));
    const fresh = batch.filter((p) => !current.has(partitionKey(p)));
    const target = { DatabaseName: this.options.database, TableName: curatedTable(stream) };
    // A partition another writer created since (none should: runs never overlap) is updated instead.
    const raced: CuratedPartition[] = [];
    for (let i = 0; i < fresh.length; i += GLUE_WRITE_BATCH) {
      const chunk = fresh.slice(i, i + GLUE_WRITE_BATCH);
      const answer = await this.glue.send(new BatchCreatePartitionCommand({ ...target, PartitionInputList: chunk.map(input) }));
      for (const error of answer.Errors ?? []) {
        const [projectId, dt] = error.PartitionValues ?? [];
        if (error.ErrorDetail?.ErrorCode === 'AlreadyExistsException' && projectId !== undefined && dt !== undefined) raced.push({ projectId, dt });
        else throw new Error(`Glue did not create a partition of ${curatedTable(stream)}: ${error.ErrorDetail?.ErrorCode ?? 'no code'}`);
      }
    }
    const updates = [...existing, ...raced];
    for (let i = 0; i < updates.length; i += GLUE_WRITE_BATCH) {
      const chunk = updates.slice(i, i + GLUE_WRITE_BATCH);
      const answer = await this.glue.send(
        new BatchUpdatePartitionCommand({ ...target, Entries: chunk.map((p) => ({ PartitionValueList: [p.projectId, p.dt], PartitionInput: input(p) })) }),
      );
      const failed = answer.Errors ?? [];
      if (failed.length > 0)
        throw new Error(`Glue did not update ${failed.length} partition(s) of ${curatedTable(stream)}: ${failed[0]!.ErrorDetail?.ErrorCode ?? 'no code'}`);
    }
  }

  async publishViews(compactedThrough: Record<StreamName, string | undefined>): Promise<void> {
    for (const sql of viewStatements(this.options.database, compactedThrough)) await this.athena.run(sql, this.deadlineMs);
  }

  async deleteGeneration(stream: StreamName, g: RetiringGeneration): Promise<void> {
    checkGeneration(g.generation);
    await deletePrefix(this.s3, this.options.bucket, generationPrefix(stream, g.projectId, g.dt, g.generation), `generation ${g.generation}`);
  }

  async clearStaging(stream: StreamName): Promise<void> {
    await deletePrefix(this.s3, this.options.bucket, curatedStagingPrefix(stream), `${stream}'s staging`);
  }

  async deleteLandingHour(stream: StreamName, hour: string): Promise<void> {
    if (!isLandingHour(hour)) throw new Error(`"${hour}" is not a landing hour (yyyy-MM-dd-HH)`);
    await deletePrefix(this.s3, this.options.bucket, landingHourPrefix(stream, hour), `landing hour ${hour}`);
  }

  async curatedPartitionsBefore(stream: StreamName, beforeDt: string): Promise<CuratedPartition[]> {
    if (!DAY.test(beforeDt)) throw new Error(`"${beforeDt}" is not a day (yyyy-MM-dd)`);
    const found: CuratedPartition[] = [];
    let token: string | undefined;
    do {
      // dt is a string partition key: Glue compares it as text, which orders yyyy-MM-dd days.
      const answer = await this.glue.send(
        new GetPartitionsCommand({ DatabaseName: this.options.database, TableName: curatedTable(stream), Expression: `dt < '${beforeDt}'`, NextToken: token }),
      );
      for (const partition of answer.Partitions ?? []) {
        const [projectId, dt] = partition.Values ?? [];
        if (projectId !== undefined && dt !== undefined && dt < beforeDt) found.push({ projectId, dt });
      }
      token = answer.NextToken;
    } while (token);
    return found;
  }

  /** Glue BatchDeletePartition, 25 at a time: Athena plans a query on the partitions it lists then, so a query sees a partition whole or not at all. */
  async dropPartitions(stream: StreamName, partitions: readonly CuratedPartition[]): Promise<void> {
    const target = { DatabaseName: this.options.database, TableName: curatedTable(stream) };
    for (let i = 0; i < partitions.length; i += GLUE_DELETE_BATCH) {
      const chunk = partitions.slice(i, i + GLUE_DELETE_BATCH);
      const answer = await this.glue.send(
        new BatchDeletePartitionCommand({ ...target, PartitionsToDelete: chunk.map((p) => ({ Values: [p.projectId, p.dt] })) }),
      );
      const failed = (answer.Errors ?? []).filter((e) => e.ErrorDetail?.ErrorCode !== 'EntityNotFoundException');
      if (failed.length > 0)
        throw new Error(`Glue did not delete ${failed.length} partition(s) of ${curatedTable(stream)}: ${failed[0]!.ErrorDetail?.ErrorCode ?? 'no code'}`);
    }
  }

  /** A person's rows for their export (services/export-people.ts): the readers' views, each event once. */
  async rowsOf(projectId: string, person: { ids: readonly string[]; through: string }): Promise<Pick<PersonRecordsFound, 'events' | 'identityLinks'>> {
    const read = (stream: StreamName) => this.readAndForget(renderPersonExport(stream, projectId, person, this.table(streamView(stream))));
    return { events: await read('events'), identityLinks: await read('identities') };
  }

  async linksOf(projectId: string, ids: readonly string[]): Promise<IdLink[]> {
    const tables = { curated: this.table(curatedTable('identities')), landing: this.table(landingTable('identities')) };
    const rows = await this.readAndForget(renderPersonLinks(projectId, ids, tables));
    return rows.flatMap((r) => (r.id && r.canonical_id ? [{ id: r.id, canonical_id: r.canonical_id }] : []));
  }

  /** Runs a query whose answer holds a person's rows or IDs, and deletes its result files as soon as read. */
  private async readAndForget(sql: string): Promise<Array<Record<string, string | undefined>>> {
    const { rows, execution } = await this.athena.run(sql, this.deadlineMs);
    const location = execution?.ResultConfiguration?.OutputLocation;
    if (location && this.options.queryResults) await this.options.queryResults.remove(location);
    return rows;
  }

  async curatedPartitionsOf(stream: StreamName, projectId: string, ids: readonly string[], through: string) {
    const { rows } = await this.athena.run(renderPersonPartitions(stream, projectId, { ids, through }, this.table(curatedTable(stream))), this.deadlineMs);
    return rows.flatMap((r) => (r.project_id && r.dt ? [{ projectId: r.project_id, dt: r.dt, rows: Number(r.person_rows ?? 0) }] : []));
  }

  async writeGenerationWithout(
    stream: StreamName,
    batch: readonly CuratedPartition[],
    ids: readonly string[],
    through: string,
    generation: string,
  ): Promise<void> {
    await this.unloadGeneration(stream, batch, renderWithoutPerson(stream, batch, { ids, through }, this.table(curatedTable(stream))), generation);
  }

  async eraseLanding(stream: StreamName, projectId: string, ids: readonly string[], through: string, writtenAfter?: string): Promise<number> {
    const rule = { projectId, ids: new Set(ids), through };
    const objects = await listObjects(this.s3, this.options.bucket, landingPrefix(stream));
    // A sweep for late deliveries reads only the objects written since the last one (S3's LastModified).
    const since = writtenAfter === undefined ? undefined : Date.parse(writtenAfter);
    const keys = objects.filter((o) => since === undefined || o.lastModified === undefined || o.lastModified.getTime() >= since).map((o) => o.key);
    let removed = 0;
    for (const key of keys) {
      let bytes: Uint8Array;
      try {
        bytes = await (await this.s3.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }))).Body!.transformToByteArray();
      } catch (err) {
        // Deleted since the listing (a compacted hour past its retention): nothing left to remove.
        if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') continue;
        throw err;
      }
      const zipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
      const lines = (zipped ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8').split('\n');
      const kept = lines.filter((line) => !isPersonLine(stream, line, rule));
      if (kept.length === lines.length) continue;
      const text = Buffer.from(kept.join('\n'), 'utf8');
      // Replaced whole, only once complete: S3 never adds a partial object (API_PutObject).
      await this.s3.send(new PutObjectCommand({ Bucket: this.options.bucket, Key: key, Body: zipped ? gzipSync(text) : text }));
      removed += lines.length - kept.length;
    }
    return removed;
  }

  async dropResultsState(projectId: string): Promise<number> {
    let removed = 0;
    for (const prefix of [RESULTS_STATE.prefix, RESULTS_BASE.prefix]) {
      removed += await deletePrefix(this.s3, this.options.bucket, `${prefix}project_id=${projectId}/`, `the results state of project ${projectId}`);
    }
    return removed;
  }

  async dropQueryResults(executionIds: readonly string[]): Promise<number> {
    const results = this.options.queryResults;
    if (!results) throw new Error('the compaction store was built without access to Athena result files (lambdas/entry/compaction-wiring.ts athenaCompaction)');
    let removed = 0;
    for (const id of executionIds) {
      const location = await results.locationOf(id);
      if (location) removed += await results.remove(location);
    }
    return removed;
  }

  /** The curated table's storage descriptor (columns, formats, SerDe): each partition's, with its own location. */
  private storageOf(stream: StreamName): Promise<StorageDescriptor> {
    let found = this.storage.get(stream);
    if (!found) {
      found = (async () => {
        const answer = await this.glue.send(new GetTableCommand({ DatabaseName: this.options.database, Name: curatedTable(stream) }));
        const storage = answer.Table?.StorageDescriptor;
        if (!storage) throw new Error(`Glue table ${curatedTable(stream)} has no storage descriptor`);
        return storage;
      })();
      this.storage.set(stream, found);
    }
    return found;
  }
}

/** The generation a partition location names (…/generation=<g>/). */
export function generationOf(location: string | undefined): string | undefined {
  return location === undefined ? undefined : /\/generation=([0-9A-Za-z-]+)\/?$/.exec(location)?.[1];
}

function checkGeneration(generation: string): void {
  if (!GENERATION_NAME.test(generation)) throw new Error(`"${generation}" is not a generation name`);
}
