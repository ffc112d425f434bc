/**
 * A funnel's definition (issue 25, "Funnels"; docs/api.md "Insights"; docs/decisions/insights.md
 * "Funnels"): the request body of POST /admin/v1/projects/{project_id}/insights/funnels.
 *
 * - `steps`: 2 to MAX_FUNNEL_STEPS, in order, each an event, optionally with one property filter
 *   `{ property, equals }` (the property's value as text equals the given text).
 * - `conversion_window_days`: how long after a user's first step the later steps may happen
 *   (default DEFAULT_WINDOW_DAYS, at most MAX_WINDOW_DAYS).
 * - `date_from`, `date_to`: days of the project's time zone (UTC by default), both included, at most 366 days; every step happens in it.
 * - `range`: optional, how the dates were chosen (a relative range is resolved when opened: relative-range.ts).
 * - `breakdown`: optional, `platform`, `country`, `app_version` or `property` (with
 *   `breakdown_property`, a property of the first step's event): the top 10 values by users who did
 *   the first step, the rest as "other", missing as "unknown".
 * Event names, property names and filter values are client text. Pure.
 */
import * as z from 'zod';
import { filterValueRule } from '../client-text-schema';
import { checkRange, dayField } from './date-range';
import { rangeField } from './relative-range';
import { eventName, propertyName, TREND_BREAKDOWNS } from './trends-definition';

export const MIN_FUNNEL_STEPS = 2;
export const MAX_FUNNEL_STEPS = 6;
/** Two weeks: a sign-up flow or a first purchase, without counting a user who came back a month later. */
export const DEFAULT_WINDOW_DAYS = 14;
/** A quarter: longer journeys belong to retention. */
export const MAX_WINDOW_DAYS = 90;
/** A property filter's value as text: as long as a property value the ingest keeps in a breakdown. */
export const MAX_FILTER_LENGTH = 200;
export const FUNNEL_BREAKDOWNS = TREND_BREAKDOWNS;

const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');

const StepFilter = z
  .object(
    {
      property: propertyName('where.property', 'the event property the step is filtered on'),
      equals: filterValueRule(
        z
          .string({ error: 'where.equals must be a string: the value as text ("pro", "3", "true")' })
          .max(MAX_FILTER_LENGTH, `where.equals is longer than ${MAX_FILTER_LENGTH} characters`),
        'where.equals',
      ),
    },
    { error: 'where must be an object { property, equals }' },
  )
  .strict();

const FunnelStep = z.object({ event: eventName('event'), where: StepFilter.optional() }, { error: 'each step must be an object { event, where? }' }).strict();

export const FunnelsDefinition = z
  .object(
    {
      steps: z
        .array(FunnelStep, { error: 'steps must be a list of { event, where? }' })
        .min(MIN_FUNNEL_STEPS, `steps must hold at least ${MIN_FUNNEL_STEPS} events in order: [{ "event": "view" }, { "event": "signup" }]`)
        .max(MAX_FUNNEL_STEPS, `steps may hold at most ${MAX_FUNNEL_STEPS} events`),
      conversion_window_days: z
        .number({ error: `conversion_window_days must be a whole number of days, 1 to ${MAX_WINDOW_DAYS}` })
        .int(`conversion_window_days must be a whole number of days, 1 to ${MAX_WINDOW_DAYS}`)
        .min(1, `conversion_window_days must be at least 1`)
        .max(MAX_WINDOW_DAYS, `conversion_window_days must be at most ${MAX_WINDOW_DAYS}`)
        .default(DEFAULT_WINDOW_DAYS),
      date_from: dayField('date_from'),
      date_to: dayField('date_to'),
      range: rangeField,
      breakdown: z.enum(FUNNEL_BREAKDOWNS, { error: `breakdown must be one of ${quoted(FUNNEL_BREAKDOWNS)}` }).optional(),
      breakdown_property: propertyName('breakdown_property', "the first step's event property to break down by").optional(),
    },
    { error: 'the body must be a funnel definition: { steps, conversion_window_days?, date_from, date_to, range?, breakdown?, breakdown_property? }' },
  )
  .strict()
  .superRefine((d, ctx) => {
    checkRange(d, ctx);
    if (d.breakdown === 'property' && d.breakdown_property === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'breakdown "property" needs breakdown_property: the property of the first step\'s event to break down by',
        path: ['breakdown_property'],
      });
    }
    if (d.breakdown !== 'property' && d.breakdown_property !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'breakdown_property is only for "breakdown": "property"', path: ['breakdown_property'] });
    }
  });

export type FunnelsDefinition = z.infer<typeof FunnelsDefinition>;
