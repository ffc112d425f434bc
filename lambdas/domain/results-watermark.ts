/**
 * The incremental results job's watermark rule (issue 13; docs/identity-and-experiments.md,
 * "Incremental computation"). Pure.
 *
 * The state of an experiment summarises the raw events RECEIVED (received_at) before its watermark.
 * A run at `now` summarises the next slice, received_at in [watermark, end), and commits end as the
 * new watermark once the summary is written; events received at or after the watermark (the slice
 * not yet committed and the newest ones) are read raw. The slice ends at now minus the arrival
 * allowance: an event received at time R is in the raw stream by R + allowance (twice Firehose's
 * documented worst delay with dynamic partitioning: 1.5 x the buffering interval plus the S3 retry
 * duration; docs/decisions/incremental-results.md), so the slice is complete when it is summarised. It never ends after the
 * run's `to` (a stopped experiment's stopped_at), so every summarised event is at or before any
 * later run's `to`.
 */
import { LIMITS } from './limits';

/**
 * 2 x (1.5 x 300 s buffering + 300 s S3 retry duration), the stack's defaults (lib/grants.ts
 * arrivalAllowanceSeconds computes it from the deployed values).
 */
export const DEFAULT_ARRIVAL_ALLOWANCE_MS = 25 * 60 * 1000;

export interface Slice {
  /** received_at from (inclusive), ISO 8601 UTC with milliseconds. */
  lo: string;
  /** received_at to (exclusive): the watermark once committed. */
  hi: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

function ms(value: string, label: string): number {
  const t = Date.parse(value);
  if (!Number.isFinite(t)) throw new RangeError(`${label} is not an ISO 8601 time: "${value}"`);
  return t;
}

/**
 * The watermark of an empty state: no event counted from `from` on can have been received earlier
 * than the future-timestamp clamp allows (a timestamp is at most maxFutureSkewMs after its arrival).
 */
export function initialWatermark(from: string): string {
  return iso(ms(from, 'from') - LIMITS.maxFutureSkewMs);
}

/**
 * The slice a run summarises, or undefined when there is nothing to add yet (the allowance has not
 * passed since the watermark).
 */
export function nextSlice(run: { watermark: string; now: string; to: string; allowanceMs: number }): Slice | undefined {
  const lo = ms(run.watermark, 'watermark');
  const hi = Math.min(ms(run.now, 'now') - run.allowanceMs, ms(run.to, 'to'));
  return hi > lo ? { lo: iso(lo), hi: iso(hi) } : undefined;
}

/**
 * Whether a committed state can serve a run ending at `to`: it must hold nothing received after
 * `to`. Only a stop racing a running computation can break this; the run then recomputes from raw.
 */
export function stateServes(watermark: string, to: string): boolean {
  return ms(watermark, 'watermark') <= ms(to, 'to');
}
