import { describe, expect, it } from 'vitest';
import { CURATED_FILE_BYTES, filesOverGoal } from '../../lambdas/domain/curated-files-goal';

const MiB = 1024 * 1024;

describe('curated files over their goal (one per 128 MiB of each partition)', () => {
  it('counts nothing for a file per small partition, or files of 128 MiB each', () => {
    expect(filesOverGoal({ partitions: 100, files: 100, bytes: 100 * MiB })).toBe(0);
    expect(filesOverGoal({ partitions: 1, files: 3, bytes: 3 * CURATED_FILE_BYTES })).toBe(0);
    expect(filesOverGoal({ partitions: 0, files: 0, bytes: 0 })).toBe(0);
  });

  it('counts the files past partitions plus one per started 128 MiB of the run', () => {
    expect(filesOverGoal({ partitions: 2, files: 12, bytes: 10 * MiB })).toBe(9);
    expect(filesOverGoal({ partitions: 1, files: 6, bytes: 300 * MiB })).toBe(2);
  });

  it('never reports a run within the goal, whatever the partitions’ sizes', () => {
    // Goal: Σ max(1, ⌈size / 128 MiB⌉) files; every split of the bytes over the partitions, exactly at the goal.
    for (const sizes of [
      [1, 1, 1],
      [127, 129, 1],
      [400, 1, 1, 1],
      [128, 256, 512],
    ]) {
      const allowed = sizes.reduce((n, s) => n + Math.max(1, Math.ceil((s * MiB) / CURATED_FILE_BYTES)), 0);
      const bytes = sizes.reduce((a, s) => a + s * MiB, 0);
      expect(filesOverGoal({ partitions: sizes.length, files: allowed, bytes }), sizes.join(',')).toBe(0);
    }
  });
});
