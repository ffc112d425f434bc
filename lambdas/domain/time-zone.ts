/**
 * A project's time zone (docs/api.md "Projects", docs/decisions/project-time-zone.md): an IANA name
 * such as `America/New_York`, or `UTC` (the default). Insights count local calendar days, weeks and
 * hours in it. The names accepted are the runtime's IANA database: `Intl.supportedValuesOf('timeZone')`
 * (which lists each zone once, under ICU's canonical name: `Asia/Calcutta`, not `Asia/Kolkata`), the
 * other names of the same zones the database knows (`Asia/Kolkata`), and `UTC`, spelled exactly as
 * the database does (Intl also accepts `asia/kolkata`; the query engines may not). Pure.
 */
import * as z from 'zod';

export const DEFAULT_TIME_ZONE = 'UTC';

const LISTED = new Set<string>([...Intl.supportedValuesOf('timeZone'), DEFAULT_TIME_ZONE]);

/** Area/Location as the IANA database spells its names: each part starts with a capital (Etc/GMT+5, America/Port-au-Prince). */
const IANA_SPELLING = /^[A-Z][A-Za-z0-9_+-]*(\/[A-Z][A-Za-z0-9_+-]*){0,2}$/;

/** Whether a text is a time zone name Tally accepts (exactly as the IANA database spells it). */
export function isTimeZone(name: string): boolean {
  if (LISTED.has(name)) return true;
  if (name.length > 64 || !IANA_SPELLING.test(name)) return false;
  try {
    return LISTED.has(new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone);
  } catch {
    return false;
  }
}

/** The field's rule, with a 400 message that names the field and gives an example. */
export const timeZoneField = (field: string) =>
  z.string({ error: `${field} must be a string: an IANA time zone name such as "America/New_York", or "UTC"` }).refine(isTimeZone, {
    error: (iss) =>
      `${field} "${String(iss.input).slice(0, 60)}" is not an IANA time zone name: send one such as "America/New_York", "Europe/Berlin", "Asia/Kolkata" or "UTC" (names are case-sensitive)`,
  });

/** A project's zone: the one stored, or UTC for a project that never set one. */
export function projectTimeZone(project: { time_zone?: string }): string {
  return project.time_zone ?? DEFAULT_TIME_ZONE;
}
