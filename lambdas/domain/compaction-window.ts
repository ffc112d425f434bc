/**
 * Which landing hours a compaction run takes (docs/decisions/columnar-events.md, "Compaction"). A
 * landing hour is closed once no object can still appear in it: its end, plus the longest Firehose
 * buffers a record, plus the arrival allowance (the results job's, domain/results-watermark.ts). A run
 * compacts the closed hours after the state's last one, oldest first, at most `maxHours` of them, and
 * the state then moves to the last hour it covered: the newest closed hour when it took them all
 * (hours with no object are covered too), else the last hour it took. Pure.
 */
import { landingHour, landingHourStart } from './landing-hour';

const HOUR_MS = 3_600_000;

export interface CompactionWindowInput {
  /** The landing hours holding objects, in any order. */
  present: readonly string[];
  /** The state's last compacted hour; undefined before the first run. */
  compactedThrough: string | undefined;
  nowMs: number;
  /** How long after an hour ends an object may still appear in it. */
  closeAfterMs: number;
  /** At most this many hours with objects per run (a run's time is bounded). */
  maxHours: number;
}

export interface CompactionWindow {
  /** The hours to compact, oldest first (only hours with objects). */
  hours: string[];
  /** The state's hour once they are committed; undefined when the state does not move. */
  through: string | undefined;
}

/** The newest closed hour at `nowMs`: every hour up to it is closed. */
export function closedThrough(nowMs: number, closeAfterMs: number): string {
  return landingHour(nowMs - closeAfterMs - HOUR_MS);
}

export function compactionWindow(input: CompactionWindowInput): CompactionWindow {
  if (!(input.maxHours >= 1)) throw new RangeError(`maxHours must be at least 1, got ${input.maxHours}`);
  const closed = closedThrough(input.nowMs, input.closeAfterMs);
  const after = input.compactedThrough;
  const due = [...new Set(input.present)].filter((h) => Number.isFinite(landingHourStart(h)) && (after === undefined || h > after) && h <= closed).sort();
  const hours = due.slice(0, input.maxHours);
  if (hours.length < due.length) return { hours, through: hours.at(-1) };
  // Everything closed is taken: the state moves to the newest closed hour, unless nothing has landed
  // yet (no state and no object: the first object may still land in an hour before `closed`).
  if (after === undefined && hours.length === 0) return { hours, through: undefined };
  if (after !== undefined && closed <= after) return { hours, through: undefined };
  return { hours, through: closed };
}
