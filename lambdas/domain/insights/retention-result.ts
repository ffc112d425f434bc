/**
 * A retention query's rows (adapters/sql/insight-retention.sql) as the API's result, a triangle
 * (docs/api.md "Insights"). Pure.
 *
 * Rows: cohort (the cohort's first day, YYYY-MM-DD: the day, or the week's Monday), period (NULL on
 * the cohort's size row, else 0, 1, ...), users. A cohort's periods run from 0 to the last one that
 * starts on or before date_to and on or before the day the data reach (data_through): a period no
 * event could have reached yet is not in the triangle, rather than a 0%. A period the data reach only
 * part of (it ends after data_through) is `complete: false`, its share so far; the curve leaves it
 * out. A period without a row counts 0.
 */
import type { ResultContext } from './kinds';
import { addDays, rangeDays } from './date-range';
import { dayStartMs, localDay } from './local-days';
import { rowNumber } from './insight-number';
import type { RetentionDefinition, RetentionInterval } from './retention-definition';

export interface RetentionCell {
  period: number;
  /** Users of the cohort who did the return event in the period. */
  users: number;
  /** users / the cohort's size. */
  share: number;
  /** The data reach the period's end: false for today's day or this week, whose share can still grow. */
  complete: boolean;
}

export interface RetentionCohort {
  /** The cohort's first day: the day, or the Monday of the week. */
  cohort: string;
  /** Users whose first start event in the range was in the cohort. */
  users: number;
  /** Periods 0 .. the last one that starts on or before date_to: the triangle's row. */
  periods: RetentionCell[];
}

export interface RetentionResult {
  interval: RetentionInterval;
  date_from: string;
  date_to: string;
  start_event: string;
  return_event: string;
  /** The longest row's length: period 0 .. periods - 1. */
  periods: number;
  cohorts: RetentionCohort[];
  /** The arrival watermark the counts reach (ISO 8601 UTC); null when not known. */
  data_through: string | null;
}

export function toRetentionResult(definition: RetentionDefinition, rows: Array<Record<string, unknown>>, context: ResultContext = {}): RetentionResult {
  const step = definition.interval === 'day' ? 1 : 7;
  const zone = context.timeZone ?? 'UTC';
  const through = context.dataThrough === undefined ? undefined : Date.parse(context.dataThrough);
  // Days are the project's local days: the data reach the local day data_through falls on.
  const lastDay = through === undefined || definition.date_to < localDay(zone, through) ? definition.date_to : localDay(zone, through);
  const sizes = new Map<string, number>();
  const returned = new Map<string, Map<number, number>>();
  for (const row of rows) {
    const cohort = String(row.cohort).slice(0, 10);
    const period = rowNumber(row.period, 'period', 'Retention');
    const users = rowNumber(row.users, 'users', 'Retention') ?? 0;
    if (period === null) sizes.set(cohort, users);
    else {
      if (!returned.has(cohort)) returned.set(cohort, new Map());
      returned.get(cohort)!.set(period, users);
    }
  }
  const cohorts = [...sizes.keys()].sort().map((cohort) => {
    const users = sizes.get(cohort)!;
    const count = cohort > lastDay ? 0 : Math.floor((rangeDays(cohort, lastDay) - 1) / step) + 1;
    const cells = returned.get(cohort) ?? new Map<number, number>();
    return {
      cohort,
      users,
      periods: Array.from({ length: count }, (_, period) => {
        const n = cells.get(period) ?? 0;
        const ends = dayStartMs(zone, addDays(cohort, (period + 1) * step));
        return { period, users: n, share: users > 0 ? n / users : 0, complete: through === undefined || ends <= through };
      }),
    };
  });
  return {
    interval: definition.interval,
    date_from: definition.date_from,
    date_to: definition.date_to,
    start_event: definition.start_event,
    return_event: definition.return_event,
    periods: Math.max(0, ...cohorts.map((c) => c.periods.length)),
    cohorts,
    data_through: context.dataThrough ?? null,
  };
}
