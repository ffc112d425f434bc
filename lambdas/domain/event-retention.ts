/**
 * Event retention (docs/decisions/retention.md): a deployment may keep events for N days. The
 * compaction job removes the curated partitions whose event day (dt, the UTC day of the event's
 * timestamp) is before the retention boundary, the UTC day N days before now. Pure rules: the
 * setting's bounds, the boundary, which partitions it cuts, and what a running experiment is told
 * before a cut reaches its window.
 *
 * Not the events ledger's DEDUPE_WINDOW_DAYS (the deduplication window and the recent-events
 * listing's): that one keeps no event, only claims.
 */
import { MAX_LOOKBACK_DAYS } from './planning-baseline';
import { CUPED_LOOKBACK_BOUNDS } from './experiment-metric-fields';

const DAY_MS = 86_400_000;

/**
 * The shortest retention: the longest look-back a query may ask for (the planning baseline's 90 days,
 * more than CUPED's 60), so no look-back ever reaches past the boundary into removed days.
 */
export const MIN_KEEP_EVENTS_DAYS = Math.max(MAX_LOOKBACK_DAYS, CUPED_LOOKBACK_BOUNDS.max);
/** The longest: a hundred years (longer is "forever", the default: leave it unset). */
export const MAX_KEEP_EVENTS_DAYS = 36_500;
/** How many days before a cut reaches a running experiment's window its results say so. */
export const RETENTION_NOTICE_DAYS = 14;

export const KEEP_EVENTS_DAYS_TEXT = `a whole number of days from ${MIN_KEEP_EVENTS_DAYS} (the longest look-back: planning baselines) to ${MAX_KEEP_EVENTS_DAYS}, or unset to keep events forever`;

/** What is wrong with a retention setting, or undefined when it is a whole number of days in bounds. */
export function keepEventsDaysProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < MIN_KEEP_EVENTS_DAYS || value > MAX_KEEP_EVENTS_DAYS) {
    return `must be ${KEEP_EVENTS_DAYS_TEXT}`;
  }
  return undefined;
}

const day = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
const dayMs = (dt: string) => Date.parse(`${dt}T00:00:00Z`);

/** The first event day kept (yyyy-MM-dd, UTC): events of earlier days are removed. */
export function retentionBoundary(nowMs: number, keepDays: number): string {
  return day(nowMs - keepDays * DAY_MS);
}

/** The partitions a cut at `boundary` removes: those of an earlier event day. */
export function partitionsBefore<P extends { dt: string }>(partitions: readonly P[], boundary: string): P[] {
  return partitions.filter((p) => p.dt < boundary);
}

/** What the results of a running experiment say about retention (docs/api.md, "Results"). */
export interface RetentionNotice {
  /** The first event day kept now (earlier days are removed or being removed). */
  kept_from: string;
  /** The first day of events the results read (the start, or the CUPED look-back before it). */
  window_from: string;
  /** The day of the window's first event day the next cut removes. */
  removes_day: string;
  /** When that cut happens (the first compaction run on or after this UTC day). */
  removes_on: string;
  message: string;
}

/**
 * The notice for an experiment whose results read events from `windowFrom` (a UTC day): set when a
 * cut has reached the window or will within RETENTION_NOTICE_DAYS; otherwise undefined.
 */
export function retentionNotice(windowFrom: string, nowMs: number, keepDays: number): RetentionNotice | undefined {
  const keptFrom = retentionBoundary(nowMs, keepDays);
  // A day goes once the boundary passes it: on the (keepDays + 1)th day after it.
  const goesOn = (dt: string) => day(dayMs(dt) + (keepDays + 1) * DAY_MS);
  if (dayMs(goesOn(windowFrom)) - nowMs > RETENTION_NOTICE_DAYS * DAY_MS) return undefined;
  const already = windowFrom < keptFrom;
  // Once the cut has reached the window, the next day it removes is the first one kept now.
  const removesDay = already ? keptFrom : windowFrom;
  const removesOn = goesOn(removesDay);
  const message = already
    ? `Events are kept for ${keepDays} days: the events of this experiment's window before ${keptFrom} have been removed by the retention cut, and one more day goes each day (${removesDay} on ${removesOn}). Insights and queries over the events no longer see them. These results may still count them through the results job's state (its summary of events already read), but a full recompute would count only the days still kept: stop the experiment to keep its results as they are.`
    : `Events are kept for ${keepDays} days: on ${removesOn} the retention cut removes the events of ${removesDay}, the first day this experiment's results read, and one more day each day after. Insights and queries over the events will no longer see them. These results may still count them through the results job's state (its summary of events already read), but a full recompute would count only the days still kept: stop the experiment before then to keep its results as they are.`;
  return { kept_from: keptFrom, window_from: windowFrom, removes_day: removesDay, removes_on: removesOn, message };
}
