/**
 * Where the retention cut (lambdas/services/cut-retention.ts; docs/decisions/retention.md) finds and
 * drops curated partitions. Implemented by the compaction stores beside CompactionStore: on AWS the
 * Glue partitions of the curated tables (GetPartitions, BatchDeletePartition), locally the catalog's
 * symlinks. Dropping a partition only takes it out of what readers see, at once; its generations'
 * files are deleted by the compaction job's retiring step after the grace (CompactionStore.deleteGeneration).
 */
import type { StreamName } from '../domain/landing-hour';
import type { CuratedPartition } from '../domain/partition-batches';

export interface RetentionStore {
  /** The curated partitions of a stream whose event day is before `beforeDt` (yyyy-MM-dd). */
  curatedPartitionsBefore(stream: StreamName, beforeDt: string): Promise<CuratedPartition[]>;
  /** Takes these partitions out of the catalog, each at once: a reader sees a partition whole or not at all. */
  dropPartitions(stream: StreamName, partitions: readonly CuratedPartition[]): Promise<void>;
}
