/**
 * Where the compaction job (lambdas/services/compact-landing.ts) reads landing hours and writes curated
 * generations (docs/decisions/columnar-events.md). On AWS: S3 listings, Athena (UNLOAD of a
 * generation into staging, then S3 copies), the Glue partitions of the curated tables and a state object
 * (lambdas/adapters/athena-compaction.ts); locally: the data directory's files, DuckDB and symlinks
 * (lambdas/adapters/duckdb-compaction.ts). Both run the texts of lambdas/adapters/sql/compaction.ts.
 */
import type { StreamName } from '../domain/landing-hour';
import type { CompactionState, RetiringGeneration } from '../domain/compaction-state';
import type { CuratedPartition } from '../domain/partition-batches';

export type { CompactionState, RetiringGeneration };

export interface WrittenGeneration {
  /** Rows written across the batch's partitions; absent when the engine does not say (Athena's UNLOAD). */
  rows?: number;
  files: number;
  bytes: number;
}

export interface CompactionStore {
  /** The most partitions one writeGeneration may name (Athena's UNLOAD: 100). */
  readonly maxPartitionsPerWrite: number;
  /** The landing hours of a stream that hold at least one object (yyyy-MM-dd-HH). */
  landingHours(stream: StreamName): Promise<string[]>;
  readState(stream: StreamName): Promise<CompactionState>;
  /** Replaces the state whole (a reader sees the old state or the new one). */
  writeState(stream: StreamName, state: CompactionState): Promise<void>;
  /** The partitions the rows of these landing hours fall in. */
  partitionsOf(stream: StreamName, hours: readonly string[]): Promise<CuratedPartition[]>;
  /** The generation each partition is read at now (by `${dt}${projectId}`); absent: none yet. */
  currentGenerations(stream: StreamName, partitions: readonly CuratedPartition[]): Promise<Map<string, string>>;
  /** Writes `generation` of each partition of the batch: its current rows and those of the hours, each once. Readers do not see it yet. */
  writeGeneration(stream: StreamName, batch: readonly CuratedPartition[], hours: readonly string[], generation: string): Promise<WrittenGeneration>;
  /** Points each partition of the batch at `generation`, one partition at a time, each at once. */
  commit(stream: StreamName, batch: readonly CuratedPartition[], generation: string): Promise<void>;
  /** Re-creates the readers' views with each stream's compacted hour (after the state moved). */
  publishViews(compactedThrough: Record<StreamName, string | undefined>): Promise<void>;
  deleteGeneration(stream: StreamName, generation: RetiringGeneration): Promise<void>;
  /** Deletes what a killed run left in the stream's staging (curatedStagingPrefix): every run starts with it (runs never overlap). */
  clearStaging(stream: StreamName): Promise<void>;
  /** Deletes a landing hour's objects (only hours compacted and committed). */
  deleteLandingHour(stream: StreamName, hour: string): Promise<void>;
}

/** The key of a partition in currentGenerations' map. */
export { partitionKey } from '../domain/partition-batches';
