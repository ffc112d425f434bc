/**
 * The compaction job's store locally (ports/compaction-store.ts): the data directory in the S3 key
 * layout (contract/landing.ts), DuckDB for the statements Athena runs on AWS (sql/compaction.ts), and
 * for the Glue catalog's partitions a directory of symlinks, catalog/curated_<stream>/project_id=<id>/dt=<day>
 * -> the generation the partition is read at. A commit makes a new symlink and renames it over the
 * old one, which POSIX makes atomic (rename(2)), so a reader lists one generation or the other.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import {
  CURATED_CATALOG_DIR,
  CURATED_ZSTD_LEVEL,
  curatedPrefix,
  curatedStagingPrefix,
  curatedTable,
  GENERATION,
  landingTable,
  type StreamName,
} from '../contract/landing';
import { serializeCompactionState, type CompactionState } from '../domain/compaction-state';
import { isPersonLine } from '../domain/person-rows';
import type { IdLink } from '../domain/person-ids';
import { RESULTS_BASE, RESULTS_STATE } from '../contract/results-state';
import type { CuratedPartition } from '../domain/partition-batches';
import { partitionKey, type CompactionStore, type PersonFiles, type RetentionStore, type RetiringGeneration, type WrittenGeneration } from '../ports';
import { INSIGHT_RESULTS_DIR } from './duckdb-insights';
import type { LocalDuckDb, LocalView } from './duckdb-local';
import {
  catalogDir,
  checkProjectId,
  compactionStateFile,
  curatedFiles,
  landingHourDir,
  landingHourFiles,
  readCompactionState,
  CURATED_COLUMNS,
  STREAM_COLUMNS,
} from './duckdb-stream-views';
import { renderCompact, renderCompactPartitions } from './sql/compaction';
import { renderPersonLinks, renderPersonPartitions, renderWithoutPerson } from './sql/erasure';
import { quoteLiteral } from './sql/render';

/** Runs work on the landing files while no delivery appends to them (the local Firehose endpoint's). */
export type LandingExclusive = <T>(work: () => Promise<T>) => Promise<T>;

export class DuckDbCompactionStore implements CompactionStore, RetentionStore, PersonFiles {
  /** DuckDB's COPY has no partition limit; a batch is bounded so a run commits as it goes. */
  readonly maxPartitionsPerWrite = 10_000;

  constructor(
    private readonly dataDir: string,
    private readonly duckdb: LocalDuckDb,
    /** Re-creates the readers' views (the analyst views script), after the state moved. */
    private readonly onPublish: () => Promise<void> = async () => undefined,
    /** A person's deletion rewrites landing files: only while the local Firehose appends to none (lambdas/local/firehose-endpoint.ts). */
    private readonly landingExclusive: LandingExclusive = (work) => work(),
  ) {}

  async landingHours(stream: StreamName): Promise<string[]> {
    return [...(await landingHourFiles(this.dataDir, stream)).keys()];
  }

  readState(stream: StreamName): Promise<CompactionState> {
    return readCompactionState(this.dataDir, stream);
  }

  async writeState(stream: StreamName, state: CompactionState): Promise<void> {
    const file = compactionStateFile(this.dataDir, stream);
    await mkdir(dirname(file), { recursive: true });
    const temporary = `${file}.${randomUUID()}.tmp`;
    await writeFile(temporary, serializeCompactionState(state));
    await rename(temporary, file);
  }

  async partitionsOf(stream: StreamName, hours: readonly string[]): Promise<CuratedPartition[]> {
    const files = await this.hourFiles(stream, hours);
    if (files.length === 0) return [];
    const views = [{ name: landingTable(stream), landing: files, columns: STREAM_COLUMNS[stream] }];
    const rows = await this.duckdb.use(views, (session) => session.rows(renderCompactPartitions(hours, { landing: landingTable(stream) })));
    return rows.map((r) => ({ projectId: String(r.project_id), dt: String(r.dt) }));
  }

  async currentGenerations(stream: StreamName, partitions: readonly CuratedPartition[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const p of partitions) {
      const target = await readlink(this.catalogEntry(stream, p)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      });
      const generation = target?.split('/').at(-1)?.replace(`${GENERATION}=`, '');
      if (generation) found.set(partitionKey(p), generation);
    }
    return found;
  }

  async writeGeneration(stream: StreamName, batch: readonly CuratedPartition[], hours: readonly string[], generation: string): Promise<WrittenGeneration> {
    const curated = (await Promise.all(batch.map((p) => curatedFiles(this.dataDir, stream, { projectId: p.projectId, fromDt: p.dt, toDt: p.dt })))).flat();
    const tables = { curated: curatedTable(stream), landing: landingTable(stream) };
    const views = [
      { name: tables.curated, parquet: curated, columns: CURATED_COLUMNS[stream] },
      { name: tables.landing, landing: await this.hourFiles(stream, hours), columns: STREAM_COLUMNS[stream] },
    ];
    return this.writeRows(stream, batch, views, renderCompact(stream, batch, hours, tables), generation);
  }

  /** Writes `rows` (columns, then project_id and dt) as `generation` of each partition of the batch. */
  private async writeRows(
    stream: StreamName,
    batch: readonly CuratedPartition[],
    views: LocalView[],
    select: string,
    generation: string,
  ): Promise<WrittenGeneration> {
    // Written aside first, then each partition's folder moved to its generation's place. One file per
    // partition: DuckDB cannot combine PARTITION_BY with FILE_SIZE_BYTES ("Not implemented", 1.5).
    // What a killed run left aside is gone: every run clears the staging as it starts (clearStaging).
    const staging = join(this.dataDir, curatedStagingPrefix(stream), generation);
    await mkdir(dirname(staging), { recursive: true });
    // properties is DuckDB's JSON type here; written as text, the string column the Glue table declares
    // (Athena's UNLOAD writes varchar): test/engines/glue-types.test.ts reads the files as Athena would.
    const rows = stream === 'events' ? `SELECT * REPLACE (CAST(properties AS VARCHAR) AS properties) FROM (${select}) compacted` : select;
    const copy = `COPY (${rows}) TO ${quoteLiteral(staging)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL ${CURATED_ZSTD_LEVEL}, PARTITION_BY (project_id, dt))`;
    const [result] = await this.duckdb.use(views, (session) => session.rows(copy));
    let files = 0;
    let bytes = 0;
    for (const p of batch) {
      checkProjectId(p.projectId);
      const from = join(staging, `project_id=${p.projectId}`, `dt=${p.dt}`);
      const to = this.generationDir(stream, p, generation);
      const written = await readdir(from).catch(() => [] as string[]);
      await mkdir(to, { recursive: true });
      for (const name of written) {
        await rename(join(from, name), join(to, name));
        files++;
        bytes += (await stat(join(to, name))).size;
      }
    }
    await rm(staging, { recursive: true, force: true });
    return { rows: Number(result?.Count ?? result?.count ?? 0), files, bytes };
  }

  async commit(stream: StreamName, batch: readonly CuratedPartition[], generation: string): Promise<void> {
    // The new link is made beside the catalog's tables (no reader's glob reaches it), then renamed into
    // place. Links a killed run left there are removed first: runs never overlap.
    const staging = join(this.dataDir, CURATED_CATALOG_DIR, '.commit');
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    for (const p of batch) {
      const entry = this.catalogEntry(stream, p);
      await mkdir(dirname(entry), { recursive: true });
      const temporary = join(staging, randomUUID());
      await symlink(relative(dirname(entry), this.generationDir(stream, p, generation)), temporary);
      await rename(temporary, entry);
    }
  }

  async publishViews(): Promise<void> {
    await this.onPublish();
  }

  async deleteGeneration(stream: StreamName, g: RetiringGeneration): Promise<void> {
    await rm(this.generationDir(stream, g, g.generation), { recursive: true, force: true });
  }

  async clearStaging(stream: StreamName): Promise<void> {
    await rm(join(this.dataDir, curatedStagingPrefix(stream)), { recursive: true, force: true });
  }

  async deleteLandingHour(stream: StreamName, hour: string): Promise<void> {
    await rm(landingHourDir(this.dataDir, stream, hour), { recursive: true, force: true });
  }

  async curatedPartitionsBefore(stream: StreamName, beforeDt: string): Promise<CuratedPartition[]> {
    const found: CuratedPartition[] = [];
    const names = (dir: string) => readdir(dir).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? [] : Promise.reject(err)));
    for (const project of await names(catalogDir(this.dataDir, stream))) {
      if (!project.startsWith('project_id=')) continue;
      for (const day of await names(join(catalogDir(this.dataDir, stream), project))) {
        const dt = day.replace(/^dt=/, '');
        if (day.startsWith('dt=') && dt < beforeDt) found.push({ projectId: project.slice('project_id='.length), dt });
      }
    }
    return found;
  }

  /** Removes each partition's catalog link (unlink(2) is atomic): readers stop listing it; its files stay until retired. */
  async dropPartitions(stream: StreamName, partitions: readonly CuratedPartition[]): Promise<void> {
    for (const p of partitions) {
      await unlink(this.catalogEntry(stream, p)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    }
  }

  async linksOf(projectId: string, ids: readonly string[]): Promise<IdLink[]> {
    const landing = [...(await landingHourFiles(this.dataDir, 'identities')).values()].flat();
    const curated = await curatedFiles(this.dataDir, 'identities', { projectId });
    const tables = { curated: curatedTable('identities'), landing: landingTable('identities') };
    const views = [
      { name: tables.curated, parquet: curated, columns: CURATED_COLUMNS.identities },
      { name: tables.landing, landing, columns: STREAM_COLUMNS.identities },
    ];
    const rows = await this.duckdb.use(views, (session) => session.rows(renderPersonLinks(projectId, ids, tables)));
    return rows.map((r) => ({ id: String(r.id), canonical_id: String(r.canonical_id) }));
  }

  async eraseLanding(stream: StreamName, projectId: string, ids: readonly string[], through: string, writtenAfter?: string): Promise<number> {
    const rule = { projectId, ids: new Set(ids), through };
    const since = writtenAfter === undefined ? undefined : Date.parse(writtenAfter);
    let removed = 0;
    for (const file of [...(await landingHourFiles(this.dataDir, stream)).values()].flat()) {
      // A sweep for late deliveries reads only the files written since the last one.
      if (
        since !== undefined &&
        (await stat(file).then(
          (s) => s.mtimeMs < since,
          () => true,
        ))
      )
        continue;
      removed += await this.landingExclusive(async () => {
        const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return ''; // deleted meanwhile (a compacted hour past its retention)
          throw err;
        });
        const lines = text.split('\n');
        const kept = lines.filter((line) => !isPersonLine(stream, line, rule));
        if (kept.length === lines.length) return 0;
        // The object is replaced only once its new content is complete: written aside (a name no reader
        // lists: not .ndjson), then renamed over it, which POSIX makes atomic.
        const temporary = `${file}.${randomUUID()}.erasing`;
        await writeFile(temporary, kept.join('\n'));
        await rename(temporary, file);
        return lines.length - kept.length;
      });
    }
    return removed;
  }

  async curatedPartitionsOf(
    stream: StreamName,
    projectId: string,
    ids: readonly string[],
    through: string,
  ): Promise<Array<CuratedPartition & { rows: number }>> {
    const curated = await curatedFiles(this.dataDir, stream, { projectId });
    if (curated.length === 0) return [];
    const views = [{ name: curatedTable(stream), parquet: curated, columns: CURATED_COLUMNS[stream] }];
    const rows = await this.duckdb.use(views, (session) => session.rows(renderPersonPartitions(stream, projectId, { ids, through }, curatedTable(stream))));
    return rows.map((r) => ({ projectId: String(r.project_id), dt: String(r.dt), rows: Number(r.person_rows) }));
  }

  async writeGenerationWithout(
    stream: StreamName,
    batch: readonly CuratedPartition[],
    ids: readonly string[],
    through: string,
    generation: string,
  ): Promise<void> {
    const curated = (await Promise.all(batch.map((p) => curatedFiles(this.dataDir, stream, { projectId: p.projectId, fromDt: p.dt, toDt: p.dt })))).flat();
    const views = [{ name: curatedTable(stream), parquet: curated, columns: CURATED_COLUMNS[stream] }];
    await this.writeRows(stream, batch, views, renderWithoutPerson(stream, batch, { ids, through }, curatedTable(stream)), generation);
  }

  async dropResultsState(projectId: string): Promise<number> {
    checkProjectId(projectId);
    let removed = 0;
    for (const prefix of [RESULTS_STATE.prefix, RESULTS_BASE.prefix]) {
      const dir = join(this.dataDir, prefix, `project_id=${projectId}`);
      removed += await countFiles(dir);
      await rm(dir, { recursive: true, force: true });
    }
    return removed;
  }

  async dropQueryResults(executionIds: readonly string[]): Promise<number> {
    let removed = 0;
    for (const id of executionIds) {
      if (!/^[0-9A-Za-z-]+$/.test(id)) continue; // never a path
      const file = join(this.dataDir, INSIGHT_RESULTS_DIR, `${id}.json`);
      if (
        await stat(file).then(
          () => true,
          () => false,
        )
      ) {
        await rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }

  private catalogEntry(stream: StreamName, p: CuratedPartition): string {
    checkProjectId(p.projectId);
    return join(catalogDir(this.dataDir, stream), `project_id=${p.projectId}`, `dt=${p.dt}`);
  }

  private generationDir(stream: StreamName, p: CuratedPartition, generation: string): string {
    checkProjectId(p.projectId);
    return join(this.dataDir, curatedPrefix(stream), `project_id=${p.projectId}`, `dt=${p.dt}`, `${GENERATION}=${generation}`);
  }

  private async hourFiles(stream: StreamName, hours: readonly string[]): Promise<string[]> {
    const wanted = new Set(hours);
    return [...(await landingHourFiles(this.dataDir, stream, (h) => wanted.has(h))).values()].flat();
  }
}

/** The files under a directory, at any depth (0 when it is missing). */
async function countFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return entries.filter((e) => e.isFile()).length;
}
