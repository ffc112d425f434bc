/**
 * A retention table's definition (issue 25, "Retention"; docs/api.md "Insights";
 * docs/decisions/insights.md "Retention"): the request body of
 * POST /admin/v1/projects/{project_id}/insights/retention.
 *
 * - `start_event`: users enter the cohort of the day (or week) they FIRST did it in the range.
 * - `return_event`: what counts as coming back (may be the same event).
 * - `interval`: `day` (default) or `week` (weeks start on Monday): cohorts and periods, in the project's time zone.
 * - `date_from`, `date_to`: days of the project's time zone (UTC by default), both included; at most MAX_DAILY_DAYS days by day (a triangle
 *   of at most that many rows and columns), 366 by week.
 * - `range`: optional, how the dates were chosen (a relative range is resolved when opened: relative-range.ts).
 * Event names are client text. Pure.
 */
import * as z from 'zod';
import { checkRange, dayField, inBounds, rangeDays } from './date-range';
import { rangeField } from './relative-range';
import { eventName } from './trends-definition';

export const RETENTION_INTERVALS = ['day', 'week'] as const;
export type RetentionInterval = (typeof RETENTION_INTERVALS)[number];
/** A quarter of days: 92 cohorts by 92 periods at most; longer ranges by week. */
export const MAX_DAILY_DAYS = 92;

export const RetentionDefinition = z
  .object(
    {
      start_event: eventName('start_event'),
      return_event: eventName('return_event'),
      interval: z.enum(RETENTION_INTERVALS, { error: 'interval must be one of "day", "week"' }).default('day'),
      date_from: dayField('date_from'),
      date_to: dayField('date_to'),
      range: rangeField,
    },
    { error: 'the body must be a retention definition: { start_event, return_event, interval?, date_from, date_to, range? }' },
  )
  .strict()
  .superRefine((d, ctx) => {
    checkRange(d, ctx);
    if (d.interval === 'day' && inBounds(d.date_from) && inBounds(d.date_to) && rangeDays(d.date_from, d.date_to) > MAX_DAILY_DAYS) {
      ctx.addIssue({
        code: 'custom',
        message: `a daily retention table spans at most ${MAX_DAILY_DAYS} days: shorten the range or use "interval": "week"`,
        path: ['interval'],
      });
    }
  });

export type RetentionDefinition = z.infer<typeof RetentionDefinition>;
