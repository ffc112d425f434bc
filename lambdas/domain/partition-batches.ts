/**
 * The curated partitions one compaction statement writes: Athena's UNLOAD writes at most 100
 * partitions ("The maximum number of partitions that can be used with UNLOAD is 100",
 * docs/decisions/columnar-events.md), so a run writes and commits the partitions its
 * hours touch in batches of at most that many, sorted so reruns batch the same way. Pure.
 */

export interface CuratedPartition {
  projectId: string;
  dt: string;
}

export const MAX_PARTITIONS_PER_WRITE = 100;

/** A partition's key: its day (always 10 characters) then its project ID, so the pair is unambiguous. */
export const partitionKey = (p: CuratedPartition) => `${p.dt}${p.projectId}`;

export function partitionBatches(partitions: readonly CuratedPartition[], size = MAX_PARTITIONS_PER_WRITE): CuratedPartition[][] {
  if (!(size >= 1)) throw new RangeError(`batch size must be at least 1, got ${size}`);
  const unique = [...new Map(partitions.map((p) => [partitionKey(p), p])).values()].sort((a, b) =>
    partitionKey(a) < partitionKey(b) ? -1 : partitionKey(a) > partitionKey(b) ? 1 : 0,
  );
  const batches: CuratedPartition[][] = [];
  for (let i = 0; i < unique.length; i += size) batches.push(unique.slice(i, i + size));
  return batches;
}
