/**
 * The date range every insight kind reads (docs/decisions/insights.md): `date_from` and `date_to`,
 * UTC days (YYYY-MM-DD), both included, at most MAX_RANGE_DAYS; and the period of the same length
 * just before it, which trends compare against. Pure.
 */
import * as z from 'zod';

/** A year and a day: a leap year's every day, or any 366 consecutive days. */
export const MAX_RANGE_DAYS = 366;

const DAY_MS = 86_400_000;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A UTC day, YYYY-MM-DD, that is a real date. */
export const dayField = (field: string) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required: a UTC day, YYYY-MM-DD` : `${field} must be a string: a UTC day, YYYY-MM-DD`) })
    .refine((s) => DAY.test(s) && new Date(`${s}T00:00:00.000Z`).toISOString().slice(0, 10) === s, `${field} must be a real UTC day, YYYY-MM-DD`);

/** Days from..to, both included. */
export function rangeDays(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** The day `days` after (or before, negative) a day. */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The issues of a range as zod issues on date_to: reversed, or longer than the limit. */
export function checkRange(range: { date_from: string; date_to: string }, ctx: z.RefinementCtx, maxDays = MAX_RANGE_DAYS): void {
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

/** The period of the same length immediately before the range. */
export function previousPeriod(range: { date_from: string; date_to: string }): { date_from: string; date_to: string } {
  const days = rangeDays(range.date_from, range.date_to);
  return { date_from: addDays(range.date_from, -days), date_to: addDays(range.date_from, -1) };
}
