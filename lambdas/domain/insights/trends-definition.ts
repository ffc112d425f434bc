/**
 * A trends insight's definition (issue 25, "Trends"; docs/api.md "Insights"): the request body of
 * POST /admin/v1/projects/{project_id}/insights/trends, checked with messages that say what to send.
 *
 * - `series`: 1 to MAX_SERIES, each an event counted as `events`, `users` (canonical IDs), or the
 *   `sum` or `average` of a numeric `property`.
 * - `interval`: `hour`, `day` (default) or `week` (weeks start on Monday), in the project's time zone.
 * - `date_from`, `date_to`: days of the project's time zone (UTC by default), both included, at most 366 days (31 for `hour`), within
 *   FIRST_DAY..LAST_DAY (date-range.ts), and with `compare` the previous period too.
 * - `range`: optional, how the dates were chosen (a relative range is resolved when opened: relative-range.ts).
 * - `breakdown`: optional, `platform`, `country`, `app_version` or `property` (with
 *   `breakdown_property`): the top 10 values by events, the rest as "other", missing as "unknown".
 * - `compare`: the previous period of the same length too (default true).
 * Event names and property names are client text (domain/client-text.ts). Pure.
 */
import * as z from 'zod';
import { textRule } from '../client-text-schema';
import { METRIC_LIMITS } from '../experiment-metric-fields';
import { propertyNameSchema } from '../property-name';
import { checkPreviousPeriod, checkRange, dayField, inBounds, rangeDays } from './date-range';
import { rangeField } from './relative-range';

export const MAX_SERIES = 5;
/** An hourly trend spans at most a month of hours (744 buckets), so a result stays small enough to show. */
export const MAX_HOURLY_DAYS = 31;
export const TREND_MEASURES = ['events', 'users', 'sum', 'average'] as const;
export const TREND_INTERVALS = ['hour', 'day', 'week'] as const;
export const TREND_BREAKDOWNS = ['platform', 'country', 'app_version', 'property'] as const;
/** Breakdown lines shown; the other values are grouped into one line of kind "other" (insights/breakdown-line.ts). */
export const BREAKDOWN_TOP = 10;

export type TrendMeasure = (typeof TREND_MEASURES)[number];
export type TrendInterval = (typeof TREND_INTERVALS)[number];
export type TrendBreakdown = (typeof TREND_BREAKDOWNS)[number];

const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');

/** A property name (the property-name rule, domain/property-name.ts: every key an event can carry, read literally). */
export const propertyName = propertyNameSchema;

/** An event name as events carry it (client text). */
export const eventName = (field: string) =>
  textRule(
    z
      .string({ error: (iss) => (iss.input === undefined ? `${field} is required: the event's name` : `${field} must be a string: the event's name`) })
      .min(1, `${field} must not be empty`)
      .max(METRIC_LIMITS.eventLength, `${field} is longer than ${METRIC_LIMITS.eventLength} characters`),
    field,
  );

const TrendSeries = z
  .object(
    {
      event: eventName('event'),
      measure: z.enum(TREND_MEASURES, { error: `measure must be one of ${quoted(TREND_MEASURES)}` }).default('events'),
      property: propertyName('property', 'the numeric event property a sum or average reads').optional(),
    },
    { error: 'each series must be an object { event, measure?, property? }' },
  )
  .strict()
  .superRefine((s, ctx) => {
    const needsProperty = s.measure === 'sum' || s.measure === 'average';
    if (needsProperty && s.property === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `a ${s.measure} series needs property: the numeric property to ${s.measure === 'sum' ? 'sum' : 'average'}`,
        path: ['property'],
      });
    }
    if (!needsProperty && s.property !== undefined) {
      ctx.addIssue({ code: 'custom', message: `a ${s.measure} series takes no property (only sum and average do)`, path: ['property'] });
    }
  });

export const TrendsDefinition = z
  .object(
    {
      series: z
        .array(TrendSeries, { error: 'series must be a list of { event, measure?, property? }' })
        .min(1, 'series must name at least one event: [{ "event": "signup" }]')
        .max(MAX_SERIES, `series may hold at most ${MAX_SERIES} events`),
      interval: z.enum(TREND_INTERVALS, { error: `interval must be one of ${quoted(TREND_INTERVALS)}` }).default('day'),
      date_from: dayField('date_from'),
      date_to: dayField('date_to'),
      range: rangeField,
      breakdown: z.enum(TREND_BREAKDOWNS, { error: `breakdown must be one of ${quoted(TREND_BREAKDOWNS)}` }).optional(),
      breakdown_property: propertyName('breakdown_property', 'the event property to break down by').optional(),
      compare: z.boolean({ error: 'compare must be true (also count the previous period, the default) or false' }).default(true),
    },
    { error: 'the body must be a trends definition: { series, interval?, date_from, date_to, range?, breakdown?, breakdown_property?, compare? }' },
  )
  .strict()
  .superRefine((d, ctx) => {
    checkRange(d, ctx);
    if (d.compare) checkPreviousPeriod(d, ctx);
    if (d.interval === 'hour' && inBounds(d.date_from) && inBounds(d.date_to) && rangeDays(d.date_from, d.date_to) > MAX_HOURLY_DAYS) {
      ctx.addIssue({
        code: 'custom',
        message: `an hourly trend spans at most ${MAX_HOURLY_DAYS} days: shorten the range or use "interval": "day"`,
        path: ['interval'],
      });
    }
    if (d.breakdown === 'property' && d.breakdown_property === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'breakdown "property" needs breakdown_property: the event property to break down by',
        path: ['breakdown_property'],
      });
    }
    if (d.breakdown !== 'property' && d.breakdown_property !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'breakdown_property is only for "breakdown": "property"', path: ['breakdown_property'] });
    }
  });

export type TrendsDefinition = z.infer<typeof TrendsDefinition>;
