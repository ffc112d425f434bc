/**
 * Relative date ranges (docs/api.md "Relative ranges"): a definition may say how its dates were chosen,
 * `range`: "last_7_days", "last_30_days", "last_90_days", "this_month" or "custom" (the dates as they
 * are; also what a definition without `range` means, so definitions saved before ranges keep their
 * fixed dates). A saved insight or a share link keeps the `range`; whoever opens it resolves it to
 * dates against the day it is opened with resolveRange. Pure: "today" is an argument (a UTC day now;
 * the day in the project's time zone once projects have one).
 */
import * as z from 'zod';
import { addDays } from './date-range';

export const RELATIVE_RANGES = ['last_7_days', 'last_30_days', 'last_90_days', 'this_month'] as const;
export const RANGE_KINDS = [...RELATIVE_RANGES, 'custom'] as const;

export type RelativeRange = (typeof RELATIVE_RANGES)[number];
export type RangeKind = (typeof RANGE_KINDS)[number];

/** Each range as people read it, in the order a form offers them. */
export const RANGE_LABELS: Record<RangeKind, string> = {
  last_7_days: 'Last 7 days',
  last_30_days: 'Last 30 days',
  last_90_days: 'Last 90 days',
  this_month: 'This month',
  custom: 'Fixed dates',
};

const LAST_DAYS: Record<Exclude<RelativeRange, 'this_month'>, number> = { last_7_days: 7, last_30_days: 30, last_90_days: 90 };

/** The optional `range` field of every insight definition. */
export const rangeField = z
  .enum(RANGE_KINDS, { error: `range must be one of ${RANGE_KINDS.map((r) => `"${r}"`).join(', ')} (or left out: the dates as they are)` })
  .optional();

export function isRelativeRange(value: unknown): value is RelativeRange {
  return typeof value === 'string' && (RELATIVE_RANGES as readonly string[]).includes(value);
}

/**
 * The days a relative range covers when opened on `today` (YYYY-MM-DD), both included: the last N days
 * end today; this month runs from its first day to today.
 */
export function resolveRange(range: RelativeRange, today: string): { date_from: string; date_to: string } {
  if (range === 'this_month') return { date_from: `${today.slice(0, 8)}01`, date_to: today };
  return { date_from: addDays(today, -(LAST_DAYS[range] - 1)), date_to: today };
}

/**
 * A definition as it runs when opened on `today`: a relative range's dates recomputed, anything else
 * (custom, no range, not an object) unchanged.
 */
export function withResolvedRange<D>(definition: D, today: string): D {
  if (typeof definition !== 'object' || definition === null) return definition;
  const range = (definition as { range?: unknown }).range;
  return isRelativeRange(range) ? { ...definition, ...resolveRange(range, today) } : definition;
}
