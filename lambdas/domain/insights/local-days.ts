/**
 * Local calendar days in a time zone (docs/decisions/project-time-zone.md): where a day starts, which
 * day an instant falls on, and which UTC days (the `dt` partitions events are stored under) a range of
 * local days spans. A local day is 23, 24 or 25 hours long around a daylight-saving change, and starts
 * up to 14 hours before (Pacific/Kiritimati) or 12 hours after (Etc/GMT+12) the UTC day of the same
 * date, so it can span two UTC days. Offsets come from the runtime's IANA database (Intl). Pure.
 */
import { addDays, dayMs, msDay } from './date-range';

const HOUR_MS = 3_600_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, in milliseconds (positive east of Greenwich). */
export function offsetMs(zone: string, ms: number): number {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return wall - Math.floor(ms / 1000) * 1000;
}

/** The local wall time of an instant, as epoch milliseconds of the same wall time in UTC. */
const wallMs = (zone: string, ms: number): number => ms + offsetMs(zone, ms);

/** The local day (YYYY-MM-DD) an instant falls on. */
export function localDay(zone: string, ms: number): string {
  return msDay(wallMs(zone, ms));
}

/**
 * The instant a local day starts: its first instant whose local day is that day (local midnight, or
 * the end of a daylight-saving gap that swallows midnight).
 */
export function dayStartMs(zone: string, day: string): number {
  const midnight = dayMs(day);
  // Two passes: the offset at the guess can differ from the offset at local midnight by a change in between.
  let t = midnight - offsetMs(zone, midnight);
  t = midnight - offsetMs(zone, t);
  // Inside a gap (no local midnight) the day starts at the gap's end, the next whole hour or less.
  while (localDay(zone, t) < day) t += 15 * 60_000;
  while (localDay(zone, t - 1) === day) t -= 15 * 60_000;
  return t;
}

/**
 * The UTC days (partition `dt` values) holding every event of the local days from..to: the UTC day of
 * the first day's start through the UTC day of the last day's last millisecond. For UTC itself, from..to.
 */
export function utcDaysOf(zone: string, from: string, to: string): { fromDt: string; toDt: string } {
  return { fromDt: msDay(dayStartMs(zone, from)), toDt: msDay(dayStartMs(zone, addDays(to, 1)) - 1) };
}

/** A local hour: the UTC instant its key starts and its label (the wall-clock hour and the offset). */
export interface LocalHour {
  startMs: number;
  label: string;
}

const QUARTER_MS = 15 * 60_000;

/**
 * The local hours from startMs up to (not including) endMs, as the insight queries key them
 * (rules/range-events.sql): an instant's hour is its wall-clock hour, keyed by the instant minus the
 * minutes past that wall-clock hour. A day has 23 or 25 of them around a daylight-saving change (the
 * two 01:00 hours of a fall-back have different offsets, so different keys); a zone that changes by 30
 * minutes (Australia/Lord_Howe) keeps each hour on its own key. Walked every quarter hour: every zone's
 * offsets and changes are whole quarter hours.
 */
export function localHours(zone: string, startMs: number, endMs: number, limit: number): LocalHour[] {
  const out: LocalHour[] = [];
  for (let t = startMs; t < endMs; t += QUARTER_MS) {
    const offset = offsetMs(zone, t);
    const wall = t + offset;
    const key = t - (wall - Math.floor(wall / HOUR_MS) * HOUR_MS);
    if (out.length > 0 && out[out.length - 1]!.startMs === key) continue;
    if (out.length === limit) throw new RangeError(`more than ${limit} hours from ${new Date(startMs).toISOString()}`);
    out.push({ startMs: key, label: hourLabel(wall, offset) });
  }
  return out;
}

function hourLabel(wall: number, offset: number): string {
  const hour = new Date(wall).toISOString().slice(0, 13);
  if (offset === 0) return `${hour}:00Z`;
  const abs = Math.abs(offset) / 60_000;
  return `${hour}:00${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
