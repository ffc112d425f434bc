/**
 * Event timestamps: ISO 8601 strings, unix seconds or unix milliseconds, all reduced to one
 * instant in epoch milliseconds so that the same moment written four ways dedupes as one.
 */

/** Numbers below this are seconds, at or above it milliseconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const SECONDS_CEILING = 1e11;

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

export type TimestampResult = { ok: true; ms: number } | { ok: false; error: string };

export function parseTimestamp(value: unknown): TimestampResult {
  if (typeof value === 'number') return fromNumber(value);
  if (typeof value === 'string') return fromIso(value);
  return { ok: false, error: 'timestamp must be an ISO 8601 string or a unix time in seconds or milliseconds' };
}

function fromNumber(value: number): TimestampResult {
  if (!Number.isFinite(value) || value < 0) {
    return { ok: false, error: 'timestamp must be a non-negative unix time in seconds or milliseconds' };
  }
  const ms = value < SECONDS_CEILING ? Math.round(value * 1000) : Math.round(value);
  return checkRange(ms);
}

function fromIso(value: string): TimestampResult {
  const m = ISO_8601.exec(value.trim());
  if (!m) {
    return { ok: false, error: `timestamp "${truncate(value)}" is not ISO 8601 (e.g. 2026-01-01T12:00:00.000Z)` };
  }
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m;
  const year = Number(y),
    month = Number(mo),
    day = Number(d),
    hour = Number(h),
    minute = Number(mi),
    second = Number(s);
  const millis = Number((frac + '000').slice(0, 3));
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC rolls 2026-02-30 over into March; reject instead of guessing.
  const check = new Date(local);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    return { ok: false, error: `timestamp "${truncate(value)}" is not a valid date and time` };
  }
  // No zone means UTC (documented): servers and SDKs that omit it almost always mean UTC.
  const offsetMs = zone === undefined || zone === 'Z' || zone === 'z' ? 0 : parseOffset(zone);
  if (offsetMs === undefined) {
    return { ok: false, error: `timestamp "${truncate(value)}" has a time-zone offset out of range (from -23:59 to +23:59)` };
  }
  return checkRange(local - offsetMs);
}

/** ±hh, ±hhmm or ±hh:mm in milliseconds; undefined past 23 hours or 59 minutes (RFC 3339's time-numoffset). */
function parseOffset(zone: string): number | undefined {
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes) * 60_000;
}

function checkRange(ms: number): TimestampResult {
  // Year 9999 is the last one an ISO 8601 string with four year digits can carry.
  if (ms < 0 || ms > 253_402_300_799_999) return { ok: false, error: 'timestamp is out of range (1970 to 9999)' };
  return { ok: true, ms };
}

/** The arrival-time default and the 48-hour future clamp of the spec. */
export function effectiveTimestamp(sentMs: number | undefined, receivedMs: number, maxFutureSkewMs: number): number {
  if (sentMs === undefined) return receivedMs;
  return sentMs > receivedMs + maxFutureSkewMs ? receivedMs : sentMs;
}

const DAY_MS = 86_400_000;
/**
 * Date parts ("2026-01-01T") by day number: a batch's instants share a few days (its events' and
 * its arrival's). Cleared when it reaches MAX_DAYS, so an instance never holds more.
 */
const datePrefixes = new Map<number, string>();
const MAX_DAYS = 1000;

function datePrefix(day: number): string {
  let prefix = datePrefixes.get(day);
  if (prefix === undefined) {
    if (datePrefixes.size >= MAX_DAYS) datePrefixes.clear();
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    datePrefixes.set(day, prefix);
  }
  return prefix;
}

/**
 * new Date(ms).toISOString() for an instant from 1970 to 9999 (the range parseTimestamp accepts), with
 * the date part formatted once per day (datePrefix) and the time of day by arithmetic: this runs twice per event.
 */
export function toIso(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  let t = ms - day * DAY_MS;
  const millis = t % 1000;
  t = (t - millis) / 1000;
  const seconds = t % 60;
  t = (t - seconds) / 60;
  const minutes = t % 60;
  const hours = (t - minutes) / 60;
  return `${datePrefix(day)}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

function truncate(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
