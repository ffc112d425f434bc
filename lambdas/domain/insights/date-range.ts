/**
 * The date range every insight kind reads (docs/decisions/insights.md; docs/api.md "Date bounds"):
 * `date_from` and `date_to`, UTC days (YYYY-MM-DD), both included, at most MAX_RANGE_DAYS, each within
 * FIRST_DAY..LAST_DAY; and the period of the same length just before it, which trends compare against
 * (also within the bounds). Days are walked as epoch milliseconds, never as text. Pure.
 */
import * as z from 'zod';

/** A year and a day: a leap year's every day, or any 366 consecutive days. */
export const MAX_RANGE_DAYS = 366;

/**
 * The first day a range (or the previous period a trend compares against) may reach: the earliest
 * day an event's timestamp can carry (ingestion refuses instants before 1970).
 */
export const FIRST_DAY = '1970-01-01';
/**
 * The last day a range may reach. No event can be later than 48 hours after it arrives (later
 * timestamps are clamped to arrival time), so days further on are always empty; the bound keeps every
 * day, bucket and the SQL's date arithmetic far from year 9999, past which dates stop being
 * four-digit YYYY-MM-DD text.
 */
export const LAST_DAY = '2999-12-31';

export const DAY_MS = 86_400_000;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Epoch milliseconds of a UTC day's midnight. */
export const dayMs = (day: string): number => Date.parse(`${day}T00:00:00.000Z`);
/** The UTC day (YYYY-MM-DD) of epoch milliseconds within FIRST_DAY..LAST_DAY's years. */
export const msDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const isDay = (s: string): boolean => DAY.test(s) && Number.isFinite(dayMs(s)) && msDay(dayMs(s)) === s;

const FIRST_MS = dayMs(FIRST_DAY);
const LAST_MS = dayMs(LAST_DAY);

/** Whether a text is a real UTC day within FIRST_DAY..LAST_DAY. */
export const inBounds = (s: string): boolean => isDay(s) && dayMs(s) >= FIRST_MS && dayMs(s) <= LAST_MS;

/** A UTC day, YYYY-MM-DD, that is a real date within FIRST_DAY..LAST_DAY. */
export const dayField = (field: string) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required: a UTC day, YYYY-MM-DD` : `${field} must be a string: a UTC day, YYYY-MM-DD`) })
    .refine(isDay, `${field} must be a real UTC day, YYYY-MM-DD`)
    // Only for a real day: one message for one mistake.
    .refine((s) => !isDay(s) || (dayMs(s) >= FIRST_MS && dayMs(s) <= LAST_MS), `${field} must be from ${FIRST_DAY} to ${LAST_DAY}`);

/** Days from..to, both included. */
export function rangeDays(from: string, to: string): number {
  return Math.round((dayMs(to) - dayMs(from)) / DAY_MS) + 1;
}

/** The day `days` after (or before, negative) a day. */
export function addDays(day: string, days: number): string {
  return msDay(dayMs(day) + days * DAY_MS);
}

/** The issues of a range as zod issues on date_to: reversed, or longer than the limit. */
export function checkRange(range: { date_from: string; date_to: string }, ctx: z.RefinementCtx, maxDays = MAX_RANGE_DAYS): void {
  // A day that is not one (or out of bounds) has its own issue already.
  if (!inBounds(range.date_from) || !inBounds(range.date_to)) return;
  const days = rangeDays(range.date_from, range.date_to);
  if (days < 1) {
    ctx.addIssue({ code: 'custom', message: `date_to (${range.date_to}) must be on or after date_from (${range.date_from})`, path: ['date_to'] });
  } else if (days > maxDays) {
    ctx.addIssue({
      code: 'custom',
      message: `the range is ${days} days; at most ${maxDays} are allowed: move date_from or date_to closer`,
      path: ['date_to'],
    });
  }
}

/**
 * The issue of a range whose previous period (compared against) would start before FIRST_DAY, on
 * date_from; only for a range checkRange accepted.
 */
export function checkPreviousPeriod(range: { date_from: string; date_to: string }, ctx: z.RefinementCtx): void {
  if (!inBounds(range.date_from) || !inBounds(range.date_to)) return;
  const days = rangeDays(range.date_from, range.date_to);
  if (days < 1 || days > MAX_RANGE_DAYS) return;
  const start = dayMs(range.date_from) - days * DAY_MS;
  if (start < FIRST_MS) {
    ctx.addIssue({
      code: 'custom',
      message: `the previous period compared against would start on ${msDay(start)}, before ${FIRST_DAY}: move date_from to ${addDays(FIRST_DAY, days)} or later, or send "compare": false`,
      path: ['date_from'],
    });
  }
}

/** The period of the same length immediately before the range. */
export function previousPeriod(range: { date_from: string; date_to: string }): { date_from: string; date_to: string } {
  const days = rangeDays(range.date_from, range.date_to);
  return { date_from: addDays(range.date_from, -days), date_to: addDays(range.date_from, -1) };
}
