/**
 * An experiment started earlier than the request that starts it: a team registering an experiment
 * its app has already been running (bucketing locally with the SDK), or the demo spreading its users'
 * enrollment over past days. `POST …/start` may name `started_at`, at most MAX_BACKDATED_START_DAYS
 * before now and never after it: the results then count the exposures and conversions from that
 * moment (their events' timestamps), exactly as if it had been started then. Pure.
 */
export const MAX_BACKDATED_START_DAYS = 90;

const DAY_MS = 86_400_000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** The start time (epoch ms) a request names, or what is wrong with it in words naming `started_at`. */
export function backdatedStart(text: string, nowMs: number): { ms: number } | { problem: string } {
  const ms = ISO.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) return { problem: 'started_at must be an ISO 8601 time with a time zone, e.g. 2026-05-01T09:00:00Z' };
  if (ms > nowMs) return { problem: 'started_at must not be in the future: leave it out to start now' };
  if (ms < nowMs - MAX_BACKDATED_START_DAYS * DAY_MS) return { problem: `started_at must be at most ${MAX_BACKDATED_START_DAYS} days ago` };
  return { ms };
}
