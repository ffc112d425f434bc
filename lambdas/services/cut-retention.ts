/**
 * The retention cut (docs/decisions/retention.md), a step of the compaction job run after compaction
 * (lambdas/handlers/compact-landing.ts): the curated event partitions whose event day is before the
 * retention boundary (domain/event-retention.ts) are taken out of the catalog, each at once (Glue's
 * BatchDeletePartition on AWS, a symlink's removal locally), so the events view, unique_events and
 * every query stop reading them together. Their files are deleted by the compaction job's retiring
 * step once the grace is over (a query planned before the cut still reads them), as superseded
 * generations are: the generation each partition pointed at is put on the retiring list BEFORE the
 * partition is dropped, so a run stopped in between leaves nothing behind; the generations it
 * replaced earlier are on that list already.
 *
 * Only events: identity links are not events (they say which IDs are one person, whatever the
 * events' age; deleting a person removes them). Landing hours need no cut: the compaction job
 * deletes them 3 days after compaction, well inside the shortest retention.
 */
import { STREAM_NAMES, type StreamName } from '../domain/landing-hour';
import { partitionsBefore, retentionBoundary } from '../domain/event-retention';
import { partitionKey, type CompactionStore, type RetentionStore } from '../ports';
import { withRetiring } from './compact-landing';

/** The streams a cut applies to. */
export const RETAINED_STREAMS: readonly StreamName[] = STREAM_NAMES.filter((s) => s === 'events');

export interface RetentionOptions {
  nowMs: number;
  keepDays: number;
  /** How long a dropped partition's files stay readable (CompactionOptions.graceMs). */
  graceMs: number;
}

export interface RetentionCut {
  stream: StreamName;
  /** The first event day kept. */
  keptFrom: string;
  /** Partitions (project, day) dropped by this run. */
  partitions: number;
  /** Event days among them. */
  days: number;
}

export async function cutRetention(store: CompactionStore & RetentionStore, options: RetentionOptions): Promise<RetentionCut[]> {
  const keptFrom = retentionBoundary(options.nowMs, options.keepDays);
  const after = new Date(options.nowMs + options.graceMs).toISOString();
  const cuts: RetentionCut[] = [];
  for (const stream of RETAINED_STREAMS) {
    const old = partitionsBefore(await store.curatedPartitionsBefore(stream, keptFrom), keptFrom);
    if (old.length > 0) {
      const current = await store.currentGenerations(stream, old);
      const retiring = old.flatMap((p) => {
        const generation = current.get(partitionKey(p));
        return generation === undefined ? [] : [{ ...p, generation, after }];
      });
      await store.writeState(stream, withRetiring(await store.readState(stream), retiring));
      await store.dropPartitions(stream, old);
    }
    cuts.push({ stream, keptFrom, partitions: old.length, days: new Set(old.map((p) => p.dt)).size });
  }
  return cuts;
}
