/**
 * Landing hours (docs/decisions/columnar-events.md): the UTC hour an object of a raw stream landed
 * in, written yyyy-MM-dd-HH (Firehose's `!{timestamp:yyyy-MM-dd-HH}` prefix, Athena's projection of
 * the landing tables' arrival_hour), and the two raw streams. Pure.
 */

export type StreamName = 'events' | 'identities';
export const STREAM_NAMES: readonly StreamName[] = ['events', 'identities'];

const HOUR_MS = 3_600_000;

/** The landing hour of an instant (epoch ms): "2026-03-20-10". */
export function landingHour(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)}-${iso.slice(11, 13)}`;
}

/** When a landing hour starts (epoch ms); NaN for a malformed hour. */
export function landingHourStart(hour: string): number {
  if (!/^\d{4}-\d{2}-\d{2}-\d{2}$/.test(hour)) return Number.NaN;
  return Date.parse(`${hour.slice(0, 10)}T${hour.slice(11, 13)}:00:00.000Z`);
}

/** The landing hour `n` hours after `hour` (n may be negative). */
export function addHours(hour: string, n: number): string {
  return landingHour(landingHourStart(hour) + n * HOUR_MS);
}

export const isLandingHour = (hour: string) => Number.isFinite(landingHourStart(hour)) && landingHour(landingHourStart(hour)) === hour;
