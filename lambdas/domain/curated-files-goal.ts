/**
 * The curated layout's file goal (issue 35; docs/decisions/columnar-events.md, "Files"): no partition
 * (project, day) holds more than one file per 128 MiB of its data, at least one. Many small files cost
 * every reader (Athena opens and plans each one). Locally the compaction writes one file per partition;
 * on AWS, Athena's UNLOAD decides ("UNLOAD results are written to multiple files in parallel", and its
 * documentation states no count), so the job checks what each run wrote.
 */
export const CURATED_FILE_BYTES = 128 * 1024 * 1024;

export interface WrittenFiles {
  /** Partitions written (each once in a run). */
  partitions: number;
  files: number;
  bytes: number;
}

/**
 * How many files a run wrote beyond the goal, counted from its totals alone: the goal allows at most
 * Σ max(1, ⌈bytes of p / 128 MiB⌉) ≤ partitions + ⌈bytes / 128 MiB⌉ files, so any file past that bound
 * is certainly over it (0 when within; a run over the goal by less may go unseen, none is reported
 * wrongly).
 */
export function filesOverGoal(written: WrittenFiles): number {
  if (written.files === 0) return 0;
  return Math.max(0, written.files - written.partitions - Math.ceil(written.bytes / CURATED_FILE_BYTES));
}
