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
  const parts = Object.fromEntries(formatter(zone).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
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

/** The local hour starts from a local day's start up to (not including) `endMs`, as instants. */
export function localHourStarts(zone: string, startMs: number, endMs: number, limit: number): number[] {
  const out: number[] = [];
  for (let t = startMs; t < endMs; ) {
    if (out.length === limit) throw new RangeError(`more than ${limit} hours from ${new Date(startMs).toISOString()}`);
    out.push(t);
    const next = t + HOUR_MS;
    // A zone whose change is not a whole hour (Australia/Lord_Howe: 30 minutes) moves the local hour's start.
    const minutes = new Date(wallMs(zone, next)).getUTCMinutes();
    t = minutes === 0 || next - minutes * 60_000 <= t ? next : next - minutes * 60_000;
  }
  return out;
}

/** An instant as a local hour's label: YYYY-MM-DDTHH:MM and the offset (Z when it is zero, else ±HH:MM). */
export function localHourLabel(zone: string, ms: number): string {
  const offset = offsetMs(zone, ms);
  const wall = new Date(ms + offset).toISOString().slice(0, 16);
  if (offset === 0) return `${wall}Z`;
  const abs = Math.abs(offset) / 60_000;
  return `${wall}${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
