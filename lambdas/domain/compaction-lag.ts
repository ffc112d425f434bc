/**
 * Whether the compaction job keeps up (the smoke test's check, bin/smoke/raw-stream.ts): the landing
 * hours that closed (domain/compaction-window.ts closedThrough) more than `slackMs` ago and are still
 * after the state's compacted hour. A run takes every closed hour, so after a run's interval and
 * duration (the slack) there should be none; any is a compaction that fails or has stopped. Pure.
 */
import { closedThrough } from './compaction-window';

export function hoursBehind(present: readonly string[], compactedThrough: string | undefined, nowMs: number, closeAfterMs: number, slackMs: number): string[] {
  const closed = closedThrough(nowMs - slackMs, closeAfterMs);
  return present.filter((h) => (compactedThrough === undefined || h > compactedThrough) && h <= closed).sort();
}
