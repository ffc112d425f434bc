/**
 * The OpenAPI 3.1 document of the API, generated from the route manifest (lambdas/routes.ts: paths,
 * methods, auth) and the zod schemas the handlers validate requests with (z.toJSONSchema), so clients
 * in other languages can be generated and the reference cannot drift from the code. Response shapes
 * follow the interface spec for the public routes and the handlers for the admin API.
 *
 * Served by the local server at GET /openapi.json; `npm run openapi` writes it to a file;
 * test/e2e/openapi.e2e.test.ts checks it against the manifest. A route added to the manifest fails
 * the type check until it has its entry in OPERATIONS below.
 */
import * as z from 'zod';
import { SentEventSchema } from './domain/event-schema';
import { LIMITS } from './domain/limits';
import { Query as EventNamesQuery } from './handlers/event-names-list';
import { Query as PropertyNamesQuery } from './handlers/property-names-list';
import { Query as EventsListQuery } from './handlers/events-list';
import { UsersListQuery } from './handlers/users';
import { AuditListQuery } from './handlers/audit';
import { PlanRequest } from './handlers/plan';
import { FunnelsDefinition } from './domain/insights/funnels-definition';
import { RetentionDefinition } from './domain/insights/retention-definition';
import { TrendsDefinition } from './domain/insights/trends-definition';
import { CreateSavedInsight, UpdateSavedInsight } from './domain/insights/saved-insight';
import { CreateDashboard, UpdateDashboard } from './domain/insights/dashboard';
import {
  CorrectionField,
  CreateExperiment,
  CupedLookbackDays,
  Cuped,
  Metric,
  PatchExperiment,
  PlannedUsers,
  Sequential,
  StartExperiment,
} from './handlers/experiments-admin';
import { CreateKey, UpdateKey } from './handlers/keys';
import { CreateProject, UpdateProject } from './handlers/projects';
import { CreateDeletion, DELETION_STEPS } from './domain/deletion';
import { CreateExport, EXPORT_FILE_DAYS, EXPORT_LINK_SECONDS } from './domain/person-export';
import { DeletionsListQuery } from './handlers/deletions';
import { ROUTES, type Route, type RouteName } from './routes';

/** The /v1/events batch: the per-event schema parseBatch applies to each event, in the documented envelope. */
export const V1Batch = z.object({
  events: z.array(SentEventSchema).max(LIMITS.maxEventsPerBatch),
  context: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Defaults for every event of the batch: any per-event field except name, properties and timestamp'),
});

const ApiEvent = z.object({
  name: z.string().min(1),
  user_id: z.string().optional(),
  session_id: z.string().optional(),
  timestamp: z.string().optional().describe('ISO 8601; defaults to now'),
  properties: z.record(z.string(), z.unknown()).optional(),
});
const ApiBatch = z.object({ events: z.array(ApiEvent).max(LIMITS.maxEventsPerBatch) });

const V1Error = z.object({
  error: z.string(),
  details: z.array(z.object({ index: z.number().int(), error: z.string() })).optional(),
  retry_after: z.number().int().optional(),
});
const ApiError = z.object({ success: z.literal(false), error: z.string() });
const AdminError = z.object({ error: z.string() });

const Experiment = z.object({
  id: z.string(),
  project_id: z.string(),
  name: z.string(),
  variants: z.array(z.string()).describe('Each variant once, the first the control'),
  weights: z
    .array(z.number().int())
    .nullable()
    .describe('Whole percentages in the order of variants, summing to 100; null: an equal split (the default). Fixed once started'),
  goal_event: z.string().describe('The primary metric: the share of enrolled users who sent it, named after it in the results'),
  metrics: z
    .array(Metric)
    .describe(
      'Metrics beyond the goal, at most 10: kind conversion, count or sum (of property), role secondary or guardrail (with its bad direction), optional cap (a percentile). [] when none',
    ),
  sequential: Sequential.describe('Always-valid intervals and p-values (sequential testing); default true'),
  correction: CorrectionField.describe('Multiple-testing correction across variants × the goal and secondary metrics; default "holm", null: none'),
  cuped: Cuped.describe(
    "CUPED variance reduction: each metric adjusted by the user's own value of it in the cuped_lookback_days before their first exposure; default true. Fixed once started",
  ),
  cuped_lookback_days: CupedLookbackDays.describe('Days of pre-exposure data per user CUPED reads, 1 to 60; default 14. Fixed once started'),
  planned_users: PlannedUsers.describe(
    'Users the experiment plans to enroll, all variants together (the users_total of POST .../plan); the results page shows progress toward it. null: no plan (the default). Fixed once started',
  ),
  description: z.string().nullable(),
  status: z.string(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  stopped_at: z.string().nullable(),
});
/** The variants SDKs bucket from: with weights, a variant repeats (docs/identity-and-experiments.md#variant-weights). */
const BucketingList = z
  .array(z.string())
  .describe(
    'The list to bucket from with variants[bucket % variants.length]: each variant repeated in a row as often as its weight needs (90/10: nine control, one treatment); the plain variants for an equal split',
  );
const Nullable = z.number().nullable();
const ResultsSummary = z
  .object({
    computed_at: z.string(),
    enrolled: z.number().int(),
    analysis: z
      .object({ sequential: z.boolean(), correction: z.enum(['holm', 'benjamini-hochberg']).nullable() })
      .nullable()
      .describe('The analysis the lift is stated in: the experiment’s own settings; null for results computed before experiments had one'),
    lift: z.array(
      z.object({
        variant: z.string(),
        difference: Nullable.describe('Absolute difference in conversion rate against the control'),
        decision_p_value: Nullable.describe('The p-value of that difference the decision rests on: adjusted by the correction where one applies'),
        outcome: z.enum(['better', 'worse', 'no-significant-difference', 'not-testable']),
        relative_difference: Nullable,
        relative_ci_low: Nullable,
        relative_ci_high: Nullable,
        relative_p_value: Nullable.describe('The p-value of the relative difference, the one its interval belongs to'),
      }),
    ),
    srm: z.object({ flagged: z.boolean(), p_value: Nullable }),
  })
  .describe(
    'The stored results at a glance: enrolled users, each variant against the control on the goal event as the experiment’s own analysis (results metrics[0]) states it, the sample-ratio check; null until computed',
  );
const Project = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  time_zone: z.string().optional().describe('IANA time zone insights count days, weeks and hours in, e.g. America/New_York; absent until set: UTC'),
});
const Key = z.object({
  id: z.string(),
  key_prefix: z.string(),
  label: z.string().nullable().describe('What the key is for, as named at creation or renamed; null: no label. Not a secret.'),
  plan: z.string(),
  rate_limit_per_minute: z.number().int(),
  allowed_origins: z.array(z.string()),
  allowed_bundle_ids: z.array(z.string()),
  created_at: z.string(),
});
/** A metric's results (issue 22; lambdas/domain/metric-results.ts MetricResult). */
const MetricResultSchema = z
  .object({
    name: z.string().describe("The metric's name; the primary metric (first) is named after the goal event"),
    kind: z.enum(['conversion', 'count', 'sum']),
    role: z.enum(['primary', 'secondary', 'guardrail']),
    variants: z.array(
      z.object({
        variant: z.string(),
        users: z.number().int().describe('Enrolled users, each counted with or without an event of the metric'),
        mean: Nullable.describe('Mean per enrolled user of the per-user value (capped where the metric has a cap); null without users'),
        std_error: Nullable,
      }),
    ),
    comparisons: z.array(
      z.object({
        variant: z.string().describe('A variant against the control (the first variant)'),
        difference: Nullable,
        ci_low: Nullable,
        ci_high: Nullable,
        p_value: Nullable,
        relative_difference: Nullable,
        relative_ci_low: Nullable.describe('Never below -1 when per-user values cannot be negative'),
        relative_ci_high: Nullable,
        relative_p_value: Nullable,
        adjusted_p_value: Nullable.describe(
          "p_value corrected for multiple testing (the experiment's correction) across variants × non-guardrail metrics; null without a correction and on guardrails",
        ),
      }),
    ),
    cuped: z
      .boolean()
      .optional()
      .describe(
        "Whether the comparisons are CUPED-adjusted by each user's own pre-exposure value of the metric (the means stay unadjusted); false when the experiment has CUPED off or no user had pre-exposure data of the metric. Absent on results computed before CUPED",
      ),
    variance_reduction: Nullable.optional().describe(
      '1 − adjusted ÷ unadjusted variance per user, pooled across variants (0.375: the comparisons are as precise as with 1/(1 − 0.375) = 1.6× the users); null when cuped is false',
    ),
    breached: z.boolean().optional().describe('Guardrails only: some variant moved the metric in its bad direction significantly (raw p-value)'),
    unavailable: z
      .string()
      .optional()
      .describe(
        'Present only when this metric cannot be computed: why, in words (variants and comparisons are then empty). The other metrics and the verdict are unaffected',
      ),
  })
  .describe(
    'Means with standard errors per variant and each variant against the control; sequential (always-valid) intervals and p-values unless the experiment turns sequential off',
  );
/** The comparison fields of a metric's results (MetricResultSchema's comparisons), reused by breakdowns. */
const ComparisonSchema = MetricResultSchema.shape.comparisons.element;
/** A breakdown (docs/decisions/breakdowns.md; lambdas/domain/experiment-breakdowns.ts BreakdownResult). */
const BreakdownSchema = z.object({
  dimension: z.enum(['platform', 'country', 'app_version']).describe("The field of the user's first enrollment event the users are split by"),
  segments: z
    .array(
      z.object({
        value: z.string().describe('The value as the client sent it (render as text); "other" and "unknown" for those kinds'),
        kind: z
          .enum(['value', 'other', 'unknown'])
          .describe('"value": one of the 5 values with the most enrolled users; "other": every other value summed; "unknown": no value sent'),
        variants: z.array(
          z.object({
            variant: z.string(),
            users: z.number().int().describe('Enrolled users in the segment'),
            conversions: z.number().int().describe('Of them, users who converted on the goal event'),
            mean: Nullable.describe('Conversion rate; null without users'),
            std_error: Nullable,
          }),
        ),
        comparisons: z.array(ComparisonSchema).describe("Each variant against the control; adjusted_p_value corrected across the dimension's segments"),
      }),
    )
    .describe('Top values by enrolled users (ties by value), then "other", then "unknown" (each only when it has users)'),
});
const Results = z.looseObject({
  experiment_id: z.string(),
  status: z.string(),
  computed_at: z.string(),
  window: z.object({ from: z.string(), to: z.string() }),
  variants: z.array(z.looseObject({})),
  comparisons: z.array(z.looseObject({})),
  srm: z.looseObject({}),
  multiple_exposures: z.number().int(),
  series: z
    .array(
      z.looseObject({
        date: z
          .string()
          .describe('The UTC day (YYYY-MM-DD) when interval is "day"; the start of the UTC hour (YYYY-MM-DDTHH:00:00.000Z) when interval is "hour"'),
        interval: z
          .enum(['hour', 'day'])
          .describe('What the point covers: "hour" while the run (start to stop, or to now) is under 3 days, else "day"; every point of a series has the same'),
        as_of: z
          .string()
          .describe('ISO 8601 UTC: the end of the hour or day, or the run’s end for the last point; the point is the cumulative result as of then'),
        variants: z.array(z.looseObject({})),
        comparisons: z.array(z.looseObject({})),
      }),
    )
    .describe('The results over time, oldest first: one cumulative point per UTC hour of a run under 3 days, else per UTC day (at most the last 400)'),
  /** How the results were computed: the engine and the exact full-recompute query (docs/identity-and-experiments.md). */
  computation: z.object({ engine: z.enum(['athena', 'duckdb']), query: z.string() }).optional(),
  /** The incremental state after this computation: its committed watermark, whether a slice was committed, whether it counted from raw. */
  incremental: z.object({ watermark: z.string(), committed: z.boolean(), full_recompute: z.boolean() }).optional(),
  /** Every metric, the primary first (issue 22). */
  metrics: z
    .array(MetricResultSchema)
    .optional()
    .describe(
      "The primary metric (a conversion named after the goal event), then the experiment's metrics in its order; absent on results computed before metrics existed",
    ),
  guardrail_breached: z.boolean().optional().describe('Some guardrail metric is breached; absent with metrics'),
  breakdowns: z
    .array(BreakdownSchema)
    .optional()
    .describe('The primary metric per platform, country and app version of the first enrollment event; absent on results computed before breakdowns existed'),
  retention_notice: z
    .object({
      kept_from: z.string().describe('The first event day (UTC, YYYY-MM-DD) kept now; earlier days are removed'),
      window_from: z.string().describe('The first day of events these results read: the start’s day, or the CUPED look-back’s first day before it'),
      removes_day: z.string().describe('The next day of the window the retention cut removes'),
      removes_on: z.string().describe('The UTC day the cut removing removes_day runs (the first compaction run that day)'),
      message: z.string().describe('The same in words, with what to do'),
    })
    .optional()
    .describe(
      'Only on GET of a running experiment in a deployment that keeps events N days (keepEventsDays, TALLY_KEEP_EVENTS_DAYS), when the retention cut has reached the window or will within 14 days; absent otherwise',
    ),
});

const ResultsPending = z.object({
  experiment_id: z.string(),
  status: z.literal('pending'),
  requested_at: z.string().describe('ISO 8601 UTC: when the refresh was asked for'),
  results_url: z.string().describe("GET it (relative to the API's base URL) until computed_at is at or after requested_at"),
  message: z.string(),
});

interface Operation {
  summary: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body may be left out (an empty request). */
  bodyOptional?: true;
  /** Status to description and body schema (none: empty body). */
  responses: Record<number, { description: string; body?: z.ZodType }>;
}

const PlanResponse = z.object({
  question: z
    .enum(['sample_size', 'detectable_effect'])
    .describe('sample_size: the users and days mde needs (the request sent mde); detectable_effect: the smallest change detectable in weeks (it sent weeks)'),
  metric: z.object({ event: z.string(), kind: z.enum(['conversion', 'count', 'sum']), property: z.string().nullable() }),
  baseline: z.object({
    rate: z.number().nullable().describe('Conversion: the share of active users who sent the event; null for count and sum'),
    mean: z.number().describe('The mean per user (the rate for conversion)'),
    variance: z.number().describe('The variance per user (rate × (1 − rate) for conversion)'),
    users_per_day: z
      .number()
      .nullable()
      .describe('Users expected to enroll per day; null when neither the events nor the override give it (days is then null)'),
    source: z.enum(['events', 'override']).describe('Where rate, mean and variance came from'),
    users_per_day_source: z.enum(['events', 'override']).nullable(),
    events: z
      .object({
        from: z.string(),
        to: z.string(),
        lookback_days: z.number().int(),
        active_users: z.number().int().nullable().describe('Canonical users with any event in the look-back'),
        days_observed: z
          .number()
          .nullable()
          .describe("Days the look-back has data for (from its first event, 1 to lookback_days): users_per_day's denominator"),
      })
      .nullable()
      .describe('The look-back read; null when the override gave everything'),
  }),
  weeks: z.number().int().nullable().describe('detectable_effect: the weeks asked about; null for sample_size'),
  mde: z
    .number()
    .describe(
      'The relative change: as sent (sample_size), or the smallest one detectable with at least `power` in `weeks` (detectable_effect); sizing for it gives back those weeks',
    ),
  mde_absolute: z.number().describe("mde × |baseline.mean|: the change in the metric's own unit (for conversion, in rate: 0.01 is one percentage point)"),
  power: z.number(),
  alpha: z.number(),
  sequential: z.boolean(),
  variance_reduction: z
    .number()
    .describe("CUPED's expected variance reduction the plan assumed (variance_reduction_source says whose): the users needed shrink by 1 − it"),
  variance_reduction_source: z
    .enum(['given', 'measured', 'none'])
    .describe(
      "given: the request's variance_reduction; measured: measured_variance_reduction (the request gave none and the plan uses CUPED); none: 0, neither (CUPED off, or too few users to measure)",
    ),
  measured_variance_reduction: z
    .number()
    .nullable()
    .describe(
      "CUPED's reduction measured from the project's events: ρ² of each active user's value in the cuped_lookback_days before the look-back and in it (0 to 0.9); null with CUPED off, when the events were not read, with fewer than 100 active users, or when the values do not vary",
    ),
  measured_variance_reduction_users: z.number().int().nullable().describe('The active users measured_variance_reduction was measured on; null with it'),
  cuped: z.boolean().describe("Whether the experiment would use CUPED: the request's cuped, else the experiment's, else true"),
  cuped_lookback_days: z
    .number()
    .int()
    .nullable()
    .describe("CUPED's window before the look-back the reduction was measured with (the request's, else the experiment's, else 14); null with CUPED off"),
  experiment_id: z.string().nullable(),
  variants: z
    .array(z.object({ variant: z.string(), weight: z.number().int().nullable(), users: z.number().int() }))
    .describe('Users needed per variant, control first (detectable_effect: the users each variant gets in the weeks)'),
  users_total: z.number().int().describe('Users needed, all variants together (detectable_effect: users_per_day × days, rounded down)'),
  days: z.number().int().nullable().describe('Whole days to enroll users_total at users_per_day (detectable_effect: weeks × 7)'),
});

/** An insight query's answer (handlers/insights.ts): the result once it succeeded, its progress while it runs. */
const insightAnswer = (result: z.ZodType) =>
  z.object({
    status: z.enum(['succeeded', 'running']),
    query_id: z.string().describe('The cache key: sha256 of the query text and data_through; GET poll_url with it'),
    kind: z.string(),
    definition: z.unknown().describe('The definition as run, defaults filled in'),
    result: result.optional().describe('Only when status is succeeded'),
    data_through: z.string().describe('Arrival watermark: events received after it are not counted (ISO 8601 UTC)'),
    time_zone: z.string().describe("The project's time zone the query counted days, weeks and hours in (IANA name; UTC by default)"),
    cached: z.boolean().describe('The query was started by an earlier request for the same text and watermark'),
    started_at: z.string(),
    poll_url: z.string(),
    engine: z.enum(['duckdb', 'athena']),
    sql: z.string().describe('The exact query text the engine runs'),
    bytes_scanned: z.number().nullable().describe("Athena's DataScannedInBytes (what it bills); null locally"),
  });

/** A trends line's or funnel group's breakdown (lambdas/domain/insights/breakdown-line.ts). */
const BreakdownValue = z
  .string()
  .nullable()
  .describe('The value as sent for breakdown_kind "value"; "other" and "unknown" for those kinds; null without a breakdown (the totals)');
const BreakdownKindField = z
  .enum(['value', 'other', 'unknown'])
  .nullable()
  .describe(
    '"value": one value of the dimension; "other": every value outside the top 10, grouped (always last); "unknown": events without a value. A value sent as the text "other" or "unknown" has kind "value". Null without a breakdown',
  );
const TrendLine = z.object({
  series: z.number().int(),
  event: z.string(),
  measure: z.enum(['events', 'users', 'sum', 'average']),
  property: z.string().nullable(),
  breakdown_value: BreakdownValue,
  breakdown_kind: BreakdownKindField,
  values: z.array(z.number().nullable()),
  total: z.number().nullable(),
  previous_values: z.array(z.number().nullable()).nullable(),
  previous_total: z.number().nullable(),
});
const TrendsResult = z.object({
  interval: z.enum(['hour', 'day', 'week']),
  date_from: z.string(),
  date_to: z.string(),
  previous: z.object({ date_from: z.string(), date_to: z.string() }).nullable(),
  buckets: z.array(z.string()),
  breakdown: z.object({ by: z.string(), property: z.string().nullable() }).nullable(),
  lines: z.array(TrendLine),
});

const FunnelStepResult = z.object({
  step: z.number().int(),
  event: z.string(),
  where: z.object({ property: z.string(), equals: z.string() }).nullable(),
  users: z.number().int(),
  conversion_from_first: z.number().nullable(),
  conversion_from_previous: z.number().nullable(),
  drop_off: z.number().int(),
  median_seconds_from_previous: z.number().nullable(),
});
const FunnelsResult = z.object({
  date_from: z.string(),
  date_to: z.string(),
  conversion_window_days: z.number().int(),
  breakdown: z.object({ by: z.string(), property: z.string().nullable() }).nullable(),
  groups: z.array(z.object({ breakdown_value: BreakdownValue, breakdown_kind: BreakdownKindField, steps: z.array(FunnelStepResult) })),
});
const RetentionResult = z.object({
  interval: z.enum(['day', 'week']),
  date_from: z.string(),
  date_to: z.string(),
  start_event: z.string(),
  return_event: z.string(),
  periods: z.number().int(),
  cohorts: z.array(
    z.object({
      cohort: z.string(),
      users: z.number().int(),
      periods: z.array(z.object({ period: z.number().int(), users: z.number().int(), share: z.number() })),
    }),
  ),
});
const SavedInsight = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  definition: z.unknown().describe("The kind's definition, as its POST .../insights/<kind> takes it"),
  created_at: z.string(),
  updated_at: z.string(),
  problem: z
    .string()
    .nullable()
    .describe('Why the definition cannot run under the current rules (e.g. a date outside the date bounds), as a 400 would say it; null when it runs'),
});
const DashboardRange = z
  .object({ range: z.string(), date_from: z.string().optional(), date_to: z.string().optional() })
  .nullable()
  .describe('One range for every tile in place of each insight\'s own: a relative range, or "custom" with date_from and date_to; null: each tile\'s own');
const Dashboard = z.object({
  id: z.string(),
  name: z.string(),
  tiles: z.array(z.object({ saved_insight_id: z.string() })),
  range_override: DashboardRange,
  created_at: z.string(),
  updated_at: z.string(),
});
const DashboardWithInsights = Dashboard.extend({
  tiles: z.array(
    z.object({
      saved_insight_id: z.string(),
      insight: SavedInsight.nullable().describe('The saved insight, as GET …/saved-insights/{insight_id} gives it; null once it was deleted'),
    }),
  ),
});

const insightResponses = (result: z.ZodType) => ({
  200: { description: 'The query succeeded: result holds the answer', body: insightAnswer(result) },
  202: {
    description: 'The query is still running (status "running"): GET poll_url (also in Location) after Retry-After seconds',
    body: insightAnswer(result),
  },
  502: { description: 'The query failed on its engine (the reason is in error); POST the definition again to retry', body: AdminError },
});

const Deletion = z.object({
  id: z.string(),
  project_id: z.string(),
  user_id: z.string().describe('The ID the deletion was asked for'),
  reason: z.string().nullable(),
  suppress: z
    .boolean()
    .describe(
      "Whether the person's IDs are suppressed: from the 202 on, their events (and an $identify naming one as $anonymous_id) are accepted (204) and dropped: not stored, not linked. Permanent",
    ),
  state: z.enum(['pending', 'running', 'done']),
  requested_at: z.string().describe('ISO 8601, UTC'),
  requested_by: z.string().describe('The caller: an email, a subject, or "admin token"'),
  due_by: z.string().describe('requested_at + 24 h: by then every copy is physically gone'),
  finished_at: z.string().optional().describe('When the last step finished (ISO 8601, UTC)'),
  sweep_until: z
    .string()
    .optional()
    .describe(
      'Until when landing objects delivered late (Firehose retrying S3) are swept again for the rows received before the request (requested_at + 24 h 15 min)',
    ),
  ids: z.array(z.string()).optional().describe("The person's IDs found: every ID linked to user_id through $identify, now or as it was"),
  receipt: z
    .array(z.object({ store: z.enum(DELETION_STEPS.filter((s) => s !== 'ids') as [string, ...string[]]), removed: z.number().int(), at: z.string() }))
    .optional()
    .describe('What each step removed from where, and when: rows, items or files'),
});

const Export = z.object({
  id: z.string(),
  project_id: z.string(),
  user_id: z.string().describe('The ID the export was asked for'),
  state: z.enum(['pending', 'running', 'done']),
  requested_at: z.string().describe('ISO 8601, UTC'),
  requested_by: z.string().describe('The caller: an email, a subject, or "admin token"'),
  finished_at: z.string().optional().describe('When the file was written (ISO 8601, UTC)'),
  ids: z.array(z.string()).optional().describe("The person's IDs found: every ID linked to user_id through $identify, now or as it was"),
  counts: z
    .object({ events: z.number().int(), identity_links: z.number().int(), profiles: z.number().int(), assignments: z.number().int() })
    .optional()
    .describe('The records of each type in the file'),
  download_url: z
    .string()
    .optional()
    .describe(
      `When done: a link downloading the NDJSON file, signed at this read and valid ${EXPORT_LINK_SECONDS / 60} minutes (an S3 presigned URL on AWS); read the export again for a new one`,
    ),
  download_expires_at: z.string().optional().describe('When download_url stops working (ISO 8601, UTC)'),
});

const ok = (description: string, body?: z.ZodType) => ({ 200: { description, ...(body ? { body } : {}) } });
const created = (description: string, body: z.ZodType) => ({ 201: { description, body } });

/** Every route of the manifest, documented: summary, request schemas, success responses. Errors are added per auth and path. */
const OPERATIONS: Record<RouteName, Operation> = {
  'ingest-v1': {
    summary: 'Send a batch of events (every SDK uses this path); field names are also accepted in camelCase',
    body: V1Batch,
    responses: { 204: { description: 'The whole batch was accepted' } },
  },
  'ingest-api': {
    summary: 'Send a batch of events (direct HTTP form)',
    body: ApiBatch,
    responses: ok('The batch was accepted', z.object({ success: z.literal(true), events_received: z.number().int() })),
  },
  'experiments-assign': {
    summary: 'Variant assignments for a user (with user_id and/or anonymous_id), or the running experiments (legacy form, no parameters)',
    query: z.object({ user_id: z.string().optional(), anonymous_id: z.string().optional() }),
    responses: ok(
      'Assignments, or the legacy list',
      z.union([
        z.object({ assigned_variants: z.record(z.string(), z.string()) }),
        z.object({ experiments: z.array(z.object({ id: z.string(), variants: BucketingList })) }),
      ]),
    ),
  },
  'experiments-configs': {
    summary: 'Configurations of the running experiments, for on-device bucketing',
    responses: ok('Running experiments', z.object({ experiments: z.array(z.object({ id: z.string(), name: z.string(), variants: BucketingList })) })),
  },
  'admin-projects-create': { summary: 'Create a project', body: CreateProject, responses: created('The project', Project) },
  'admin-projects-list': { summary: 'List projects', responses: ok('Projects', z.object({ projects: z.array(Project) })) },
  'admin-projects-update': {
    summary: "Rename a project or set its time zone (insights' days, weeks and hours)",
    body: UpdateProject,
    responses: ok('The project', Project),
  },
  'admin-keys-create': {
    summary: 'Create an API key (its value is shown once)',
    body: CreateKey,
    responses: created('The key, with its value', Key.extend({ key: z.string() })),
  },
  'admin-keys-list': { summary: "List a project's API keys", responses: ok('Keys (never their values)', z.object({ keys: z.array(Key) })) },
  'admin-keys-update': {
    summary: "Rename an API key: set its label, or remove it with null (the key's value and restrictions stay)",
    body: UpdateKey,
    responses: ok('The key (never its value)', Key),
  },
  'admin-keys-delete': { summary: 'Revoke an API key', responses: { 204: { description: 'Revoked' } } },
  'admin-events-list': {
    summary: 'Recent stored events, newest first; user_id finds the person (every ID linked to it)',
    query: EventsListQuery,
    responses: ok(
      'Events',
      z.object({
        events: z.array(z.looseObject({})),
        people: z
          .record(z.string(), z.object({ label: z.string(), email: z.string().nullable(), name: z.string().nullable() }))
          .describe('The person of each listed canonical user_id (at most 100 named): label is the email, else the name, else the most recently linked ID'),
      }),
    ),
  },
  'admin-property-names-list': {
    summary: 'The event property names of the latest events (at most 7 days), the most events first',
    query: PropertyNamesQuery,
    responses: ok(
      'Property names',
      z.object({ property_names: z.array(z.object({ name: z.string(), events: z.number().int().describe('Events that carried it, each counted once') })) }),
    ),
  },
  'admin-event-names-list': {
    summary: 'The event names received recently, the most events first',
    query: EventNamesQuery,
    responses: ok(
      'Event names',
      z.object({
        event_names: z.array(
          z.object({
            name: z.string(),
            events: z.number().int().describe('Its events received within the window, each once'),
            last_seen: z.string().describe('Its newest event timestamp'),
          }),
        ),
      }),
    ),
  },
  'admin-users-list': {
    summary: 'Users seen recently, the most recent first, optionally searched by ID, email or name',
    query: UsersListQuery,
    responses: ok(
      'Users',
      z.object({
        users: z.array(
          z.object({
            user_id: z.string().describe('The canonical user ID'),
            ids: z.array(z.string()).describe('The IDs its events were sent with, the most recently seen first (at most 5)'),
            id_count: z.number().int().describe('How many IDs its events were sent with'),
            events: z.number().int().describe('Its events received within the window'),
            last_seen: z.string().describe('Its newest event timestamp'),
            email: z.string().nullable().describe('The latest email $identify gave for any of its IDs, as on its user page; null if none'),
            name: z.string().nullable().describe('The latest name $identify gave for any of its IDs, as on its user page; null if none'),
            first_seen: z.string().nullable().describe('When its identity group was first seen, as on its user page; null if not (yet) known'),
          }),
        ),
        next_cursor: z.string().nullable().describe('Pass as cursor (with the same search and limit) for the users after these; null when there are no more'),
      }),
    ),
  },
  'admin-users-get': {
    summary: 'A user: canonical ID, linked IDs, profile',
    responses: ok(
      'The user',
      z.object({ user_id: z.string(), ids: z.array(z.string()), email: z.string().nullable(), name: z.string().nullable(), first_seen: z.string() }),
    ),
  },
  'admin-experiments-create': { summary: 'Create an experiment', body: CreateExperiment, responses: created('The experiment', Experiment) },
  'admin-experiments-list': {
    summary: "List a project's experiments, each with its stored results at a glance",
    responses: ok('Experiments', z.object({ experiments: z.array(Experiment.extend({ results_summary: ResultsSummary.nullable() })) })),
  },
  'admin-experiments-get': { summary: 'An experiment', responses: ok('The experiment', Experiment) },
  'admin-experiments-update': { summary: 'Change an experiment', body: PatchExperiment, responses: ok('The experiment', Experiment) },
  'admin-experiments-start': {
    summary: 'Start an experiment: now, or at an earlier started_at (at most 90 days ago) for one the app already runs',
    body: StartExperiment,
    bodyOptional: true,
    responses: ok('The experiment', Experiment),
  },
  'admin-experiments-stop': { summary: 'Stop an experiment', responses: ok('The experiment', Experiment) },
  'admin-plan-compute': {
    summary:
      'Plan an experiment: users per variant, total users and run time to detect a relative change (mde), or the smallest change detectable in a number of weeks (weeks); baseline from the last lookback_days of events, or the override',
    body: PlanRequest,
    responses: {
      ...ok('The plan', PlanResponse),
      422: {
        description:
          "Cannot be planned: the project's events give no baseline for the metric (send baseline) or no users per day for weeks (send baseline.users_per_day), the change is too small to detect, or the weeks' users detect no change within the bounds",
        body: AdminError,
      },
    },
  },
  'admin-insights-trends': {
    summary: 'Trends: events, users, sums or averages of up to 5 events per hour, day or week, optionally broken down, with the previous period',
    body: TrendsDefinition,
    responses: insightResponses(TrendsResult),
  },
  'admin-insights-funnels': {
    summary:
      'Funnels: canonical users through 2 to 6 ordered steps within a conversion window, with conversion, drop-off and median time between steps, optionally broken down',
    body: FunnelsDefinition,
    responses: insightResponses(FunnelsResult),
  },
  'admin-insights-retention': {
    summary: 'Retention: cohorts by the day or week users first did a start event, and the share who did a return event in each later day or week',
    body: RetentionDefinition,
    responses: insightResponses(RetentionResult),
  },
  'admin-insights-query-get': {
    summary: 'An insight query by its ID: the result once it succeeded (200), its progress while it runs (202)',
    responses: insightResponses(z.unknown().describe("The kind's result, as the kind's POST answers it")),
  },
  'admin-saved-insights-create': {
    summary: "Save an insight: a name, the kind and its definition (checked with the kind's schema)",
    body: CreateSavedInsight,
    responses: created('The saved insight', SavedInsight),
  },
  'admin-audit-list': {
    summary: 'The audit log of admin writes, newest first: who, what (route, path IDs, field names), when, from which network (admin role)',
    query: AuditListQuery,
    responses: ok(
      'Audit log entries',
      z.object({
        entries: z.array(
          z.object({
            id: z.string(),
            at: z.string().describe('ISO 8601, UTC'),
            actor: z.object({ via: z.enum(['admin-token', 'sign-in']), subject: z.string().optional(), email: z.string().optional() }),
            role: z.enum(['viewer', 'analyst', 'experimenter', 'admin']),
            route: z.string().describe('The route name (lambdas/routes.ts)'),
            method: z.string(),
            target: z.record(z.string(), z.string()).describe('The IDs in the path'),
            fields: z.array(z.string()).describe('The names of the validated body fields, never their values'),
            network: z.string().nullable().describe('The source address cut to its /24 (IPv4) or /48 (IPv6) network'),
            status: z.number().int().nullable().describe('The status answered; null when it was not recorded'),
          }),
        ),
        next_cursor: z.string().nullable(),
      }),
    ),
  },
  'admin-saved-insights-list': {
    summary: "The project's saved insights, the most recently updated first",
    responses: ok('Saved insights', z.object({ saved_insights: z.array(SavedInsight) })),
  },
  'admin-saved-insights-get': { summary: 'A saved insight', responses: ok('The saved insight', SavedInsight) },
  'admin-saved-insights-update': {
    summary: 'Rename a saved insight or change its definition',
    body: UpdateSavedInsight,
    responses: ok('The saved insight', SavedInsight),
  },
  'admin-saved-insights-delete': { summary: 'Delete a saved insight', responses: { 204: { description: 'Deleted' } } },
  'admin-dashboards-create': {
    summary: 'Create a dashboard: a name, the saved insights it shows (tiles, in order) and an optional range for all of them',
    body: CreateDashboard,
    responses: created('The dashboard', Dashboard),
  },
  'admin-dashboards-list': {
    summary: "The project's dashboards, the most recently updated first",
    responses: ok('Dashboards', z.object({ dashboards: z.array(Dashboard) })),
  },
  'admin-dashboards-get': {
    summary: 'A dashboard with the saved insight of each tile (null for one deleted since)',
    responses: ok('The dashboard', DashboardWithInsights),
  },
  'admin-dashboards-update': {
    summary: 'Rename a dashboard, change its tiles or its range override',
    body: UpdateDashboard,
    responses: ok('The dashboard', Dashboard),
  },
  'admin-dashboards-delete': { summary: 'Delete a dashboard (its saved insights stay)', responses: { 204: { description: 'Deleted' } } },
  'admin-results-get': { summary: 'The latest computed results of an experiment', responses: ok('Results', Results) },
  'admin-results-refresh': {
    summary: 'Recompute the results of an experiment now (202 when it does not finish within 20 s; poll results_url)',
    responses: {
      ...ok('Results', Results),
      202: {
        description:
          'Not finished within the 20 s budget: the query in flight was stopped and the scheduled job completes the computation. Location (and results_url) name the results to poll until computed_at is at or after requested_at; Retry-After in seconds.',
        body: ResultsPending,
      },
    },
  },
  'admin-deletions-create': {
    summary:
      'Delete a person: every ID linked to user_id, their events, identity links, profile, assignments and the results and query answers holding them, within 24 h (admin role). An ID with no data is accepted too: its receipt says 0 everywhere. With suppress true, every ID of the person is suppressed before the 202: their later events are accepted and dropped, for good',
    body: CreateDeletion,
    responses: {
      202: {
        description: 'Accepted: the compaction job carries it out (every minute locally, every 15 minutes on AWS)',
        body: z.object({ deletion: Deletion }),
      },
    },
  },
  'admin-deletions-list': {
    summary: "The project's deletions, newest first, paginated (admin role)",
    query: DeletionsListQuery,
    responses: ok('Deletions', z.object({ deletions: z.array(Deletion), next_cursor: z.string().nullable() })),
  },
  'admin-deletions-get': {
    summary: 'A deletion, its state and, when done, its receipt (admin role)',
    responses: ok('The deletion', z.object({ deletion: Deletion })),
  },
  'admin-exports-create': {
    summary: `Export a person: every event once, the identity links and profiles, and the assignments of every ID linked to user_id, as an NDJSON file kept ${EXPORT_FILE_DAYS} days (admin role). An ID with no data gives an empty file`,
    body: CreateExport,
    responses: {
      202: { description: 'Accepted: the compaction job writes the file (every minute locally, every 15 minutes on AWS)', body: z.object({ export: Export }) },
    },
  },
  'admin-exports-list': {
    summary: "The project's exports, newest first, paginated (admin role)",
    query: DeletionsListQuery,
    responses: ok('Exports', z.object({ exports: z.array(Export), next_cursor: z.string().nullable() })),
  },
  'admin-exports-get': {
    summary: 'An export, its state and, when done, a fresh download link (admin role)',
    responses: ok('The export', z.object({ export: Export })),
  },
};

type JsonSchema = Record<string, unknown>;

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of what a client sends or receives. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

const json = (schema: z.ZodType, io: 'input' | 'output') => ({ 'application/json': { schema: schemaOf(schema, io) } });

function errorsOf(route: Route): Record<number, { description: string; body: z.ZodType; headers?: Record<string, unknown> }> {
  const body = route.path.startsWith('/api/') ? ApiError : route.auth === 'admin' ? AdminError : V1Error;
  const retryAfter = { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } };
  const errors: Record<number, { description: string; body: z.ZodType; headers?: Record<string, unknown> }> = {
    400: { description: 'Invalid request', body },
    401: { description: route.auth === 'admin' ? 'Missing or wrong admin token' : 'Invalid or missing API key', body },
  };
  if (route.auth === 'api-key') {
    errors[403] = { description: 'Request origin or bundle ID not allowed for this API key', body };
    errors[429] = { description: 'Rate limit exceeded', body, headers: retryAfter };
  } else {
    errors[404] = { description: 'No such project or resource', body };
    errors[409] = { description: 'Conflicts with the current state', body };
    errors[503] = {
      description: 'A write whose storage answer was lost could not be read back, so whether it was stored is unknown; retry',
      body,
      headers: retryAfter,
    };
  }
  errors[500] = { description: 'Server error', body };
  return errors;
}

/** The OpenAPI 3.1 document: one operation per route of the manifest. */
export function openApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES as readonly Route[]) {
    const op = OPERATIONS[route.name as RouteName];
    const pathParams = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const queryParams = op.query
      ? Object.entries((schemaOf(op.query, 'input').properties ?? {}) as Record<string, JsonSchema>).map(([name, schema]) => ({
          name,
          in: 'query',
          required: false,
          schema,
        }))
      : [];
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      responses[status] = { description: r.description, ...(r.body ? { content: json(r.body, 'output') } : {}) };
    }
    for (const [status, r] of Object.entries(errorsOf(route))) {
      responses[status] ??= { description: r.description, ...(r.headers ? { headers: r.headers } : {}), content: json(r.body, 'output') };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = {
      operationId: route.name,
      summary: op.summary,
      tags: [route.auth === 'admin' ? 'admin' : 'public'],
      security: [{ [route.auth === 'admin' ? 'adminToken' : 'apiKey']: [] }],
      ...(pathParams.length || queryParams.length ? { parameters: [...pathParams, ...queryParams] } : {}),
      ...(op.body ? { requestBody: { required: !op.bodyOptional, content: json(op.body, 'input') } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tally',
      version: '0.1.0',
      description: 'Event ingestion, identity, experiment assignment and the admin API. Bodies may be gzip-compressed (Content-Encoding: gzip).',
    },
    servers: [{ url: '/', description: 'The API base URL (the stack output ApiUrl, or npm start)' }],
    tags: [
      { name: 'public', description: 'Project API key: Authorization: Bearer <API_KEY>' },
      { name: 'admin', description: 'Admin token: Authorization: Bearer <admin token>' },
    ],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A project API key' },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The admin token (Secrets Manager on AWS, TALLY_ADMIN_TOKEN or .tally/admin-token locally)',
        },
      },
    },
    paths,
  };
}
