/**
 * POST /admin/v1/projects/{project_id}/plan: how many users an experiment needs, and how many days it
 * must run, to detect a relative change of a metric (`mde`); or the other way round, the smallest change
 * it can detect in a number of weeks with the project's traffic (`weeks`), by the same power function
 * (docs/api.md "Plan an experiment"). The baseline comes from the project's own recent events (domain/planning-baseline.ts
 * over adapters/sql/planning-baseline.sql), or from the request's override where it gives one; the
 * sample size is domain/sample-size.ts's. With CUPED the same query measures the variance reduction it
 * would give (domain/expected-variance-reduction.ts), which the plan uses unless the request gives one.
 */
import * as z from 'zod';
import { textRule } from '../domain/client-text-schema';
import { DEFAULT_VARIANTS } from '../domain/experiment';
import { cupedLookbackDays, DEFAULT_SEQUENTIAL, METRIC_LIMITS } from '../domain/experiment-metric-fields';
import { covariateSumsFor, expectedVarianceReduction } from '../domain/expected-variance-reduction';
import {
  DEFAULT_LOOKBACK_DAYS,
  MAX_LOOKBACK_DAYS,
  PLANNING_METRIC_KINDS,
  measuredBaseline,
  type MeasuredBaseline,
  type PlanningMetricKind,
} from '../domain/planning-baseline';
import { baselineProblem, boundsText, PLAN_BOUNDS, withinBound } from '../domain/plan-bounds';
import { propertyNameSchema } from '../domain/property-name';
import { minimumDetectableEffect, sampleSize, type PlanningMetric } from '../domain/sample-size';
import { weightsProblem } from '../domain/variant-weights';
import { ApiError, notFound } from '../http/api-error';
import { json } from '../http/event';
import { jsonBody } from '../http/validate';
import type { ExperimentStore, PlanningBaselines, ProjectStore } from '../ports';
import { isGeneratedIdShape, requireProject, wrapAdmin, type AdminDeps } from './admin';
import { Cuped, CupedLookbackDays, Variants, Weights } from './experiments-admin';

const DAY_MS = 86_400_000;
const MDE_MEANING = 'the relative change to detect (0.05 for +5%)';

const PlanMetric = z
  .object(
    {
      event: textRule(
        z
          .string({ error: (iss) => (iss.input === undefined ? 'metric.event is required: the event to plan for' : 'metric.event must be a string') })
          .min(1, 'metric.event must not be empty')
          .max(METRIC_LIMITS.eventLength, `metric.event is longer than ${METRIC_LIMITS.eventLength} characters`),
        'metric.event',
      ),
      kind: z
        .enum(PLANNING_METRIC_KINDS, { error: `metric.kind must be one of ${PLANNING_METRIC_KINDS.map((k) => `"${k}"`).join(', ')}` })
        .default('conversion'),
      property: propertyNameSchema('metric.property', 'the numeric event property a sum metric sums').optional(),
    },
    { error: 'metric must be an object { event, kind, property? }' },
  )
  .strict()
  .superRefine((m, ctx) => {
    if (m.kind === 'sum' && m.property === undefined)
      ctx.addIssue({ code: 'custom', message: 'a sum metric needs property: the numeric property to sum', path: ['property'] });
    if (m.kind !== 'sum' && m.property !== undefined)
      ctx.addIssue({ code: 'custom', message: `a ${m.kind} metric takes no property (only sum does)`, path: ['property'] });
  });

/** A number within its PLAN_BOUNDS, refused naming the field and the bounds otherwise. */
const bounded = (field: string, name: Exclude<Parameters<typeof withinBound>[0], 'mean'>, what: string) => {
  const message = `${field} must be ${boundsText(name)}: ${what}`;
  return z
    .number({ error: `${field} must be a number ${boundsText(name)}: ${what}` })
    .min(PLAN_BOUNDS[name].min, message)
    .max(PLAN_BOUNDS[name].max, message);
};

const BaselineOverride = z
  .object(
    {
      rate: bounded('baseline.rate', 'rate', 'the share of users who convert, e.g. 0.1').optional(),
      mean: z
        .number({ error: `baseline.mean must be a number whose magnitude is ${boundsText('mean')} (either sign): the mean value per user` })
        .refine((n) => withinBound('mean', n), `baseline.mean must be a number whose magnitude is ${boundsText('mean')} (either sign): the mean value per user`)
        .optional(),
      variance: bounded('baseline.variance', 'variance', 'the variance of the value per user').optional(),
      users_per_day: bounded('baseline.users_per_day', 'usersPerDay', 'the users expected to enroll per day').optional(),
    },
    { error: 'baseline must be an object { rate?, mean?, variance?, users_per_day? }' },
  )
  .strict();

export const PlanRequest = z
  .object({
    metric: PlanMetric.optional(),
    mde: z
      .number({ error: `mde must be a number ${boundsText('mde')}: ${MDE_MEANING}` })
      .min(PLAN_BOUNDS.mde.min, `mde must be ${boundsText('mde')}: the relative change to detect (0.05 for +5%, 10 for +1000%)`)
      .max(PLAN_BOUNDS.mde.max, `mde must be ${boundsText('mde')}: the relative change to detect (0.05 for +5%, 10 for +1000%)`)
      .optional(),
    weeks: z
      .number({ error: `weeks must be a whole number of weeks ${boundsText('weeks')}: how long the experiment can run` })
      .int(`weeks must be a whole number of weeks ${boundsText('weeks')}: how long the experiment can run`)
      .min(PLAN_BOUNDS.weeks.min, `weeks must be ${boundsText('weeks')}: how long the experiment can run`)
      .max(PLAN_BOUNDS.weeks.max, `weeks must be ${boundsText('weeks')}: how long the experiment can run`)
      .optional(),
    power: bounded('power', 'power', 'the chance to detect the change if it is there (0.8 for 80%)').default(0.8),
    alpha: bounded('alpha', 'alpha', 'the chance of a false positive, two-sided (0.05 for 95% confidence)').default(0.05),
    experiment_id: z.string({ error: 'experiment_id must be a string' }).min(1, 'experiment_id must not be empty').optional(),
    variants: Variants.optional(),
    weights: Weights.optional(),
    sequential: z.boolean({ error: 'sequential must be true (plan for always-valid intervals, the default) or false' }).optional(),
    lookback_days: z
      .number({ error: 'lookback_days must be a whole number of days' })
      .int('lookback_days must be a whole number of days')
      .min(1, 'lookback_days must be at least 1')
      .max(MAX_LOOKBACK_DAYS, `lookback_days must be at most ${MAX_LOOKBACK_DAYS}`)
      .default(DEFAULT_LOOKBACK_DAYS),
    baseline: BaselineOverride.optional(),
    variance_reduction: bounded(
      'variance_reduction',
      'varianceReduction',
      "the share of the metric's variance CUPED is expected to remove (0.3 for 30%; the results show each metric's variance_reduction); leave it out to use the one measured from the project's events",
    ).optional(),
    cuped: Cuped.optional(),
    cuped_lookback_days: CupedLookbackDays.optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.mde === undefined && r.weeks === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `mde is required: ${MDE_MEANING}; or send weeks instead, for the smallest change the experiment can detect in that many weeks`,
        path: ['mde'],
      });
    }
    if (r.mde !== undefined && r.weeks !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'send either mde (the users and days a change needs) or weeks (the smallest change detectable in that time), not both',
        path: ['weeks'],
      });
    }
    if (r.power <= r.alpha) ctx.addIssue({ code: 'custom', message: `power (${r.power}) must be above alpha (${r.alpha})`, path: ['power'] });
    if (r.experiment_id !== undefined && (r.variants !== undefined || r.weights !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'send either experiment_id (its variants and weights are used) or variants and weights, not both',
        path: ['experiment_id'],
      });
    }
    if (r.experiment_id === undefined && r.metric === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: "metric is required: { event, kind, property? } (or send experiment_id to plan for its goal event's conversion)",
        path: ['metric'],
      });
    }
    const b = r.baseline;
    const kind = r.metric?.kind ?? 'conversion';
    if (b && kind === 'conversion' && (b.mean !== undefined || b.variance !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'a conversion baseline is baseline.rate; mean and variance are for count and sum metrics', path: ['baseline'] });
    }
    if (b && kind !== 'conversion' && b.rate !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `a ${kind} baseline is baseline.mean and baseline.variance; rate is for conversion metrics`,
        path: ['baseline'],
      });
    }
    if (b?.rate !== undefined && r.mde !== undefined && b.rate * (1 + r.mde) >= 1) {
      ctx.addIssue({ code: 'custom', message: baselineProblem({ kind: 'conversion', baseline_rate: b.rate }, r.mde)!, path: ['mde'] });
    }
    if (b && kind !== 'conversion' && (b.mean === undefined) !== (b.variance === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'send baseline.mean and baseline.variance together', path: ['baseline'] });
    }
  });

export type PlanRequest = z.infer<typeof PlanRequest>;

export interface PlanDeps extends AdminDeps {
  projects: ProjectStore;
  experiments: ExperimentStore;
  planningBaselines: PlanningBaselines;
  clock: () => number;
}

/** What the request names: the metric, the variants with their weights, sequential or not. */
interface Design {
  metric: { event: string; kind: PlanningMetricKind; property: string | null };
  variants: string[];
  weights: number[] | null;
  sequential: boolean;
  /** CUPED's pre-exposure window in days, undefined when the experiment would not use CUPED. */
  cupedDays: number | undefined;
}

export function createPlanHandler(deps: PlanDeps) {
  return wrapAdmin('admin-plan-compute', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const request = await jsonBody(event, PlanRequest);
    const design = await designOf(deps, project.id, request);

    const override = request.baseline ?? {};
    const metricOverride: PlanningMetric | undefined =
      override.rate !== undefined
        ? { kind: 'conversion', baseline_rate: override.rate }
        : override.mean !== undefined && override.variance !== undefined
          ? { kind: 'mean', mean: override.mean, variance: override.variance }
          : undefined;

    // The events are read only for what the override leaves out.
    const to = new Date(deps.clock()).toISOString();
    const from = new Date(Date.parse(to) - request.lookback_days * DAY_MS).toISOString();
    let measured: MeasuredBaseline | { problem: string } | undefined;
    let activeUsers: number | null = null;
    let measuredReduction: number | null = null;
    if (metricOverride === undefined || override.users_per_day === undefined) {
      const counts = await deps.planningBaselines.measure({
        projectId: project.id,
        projectCreatedAt: project.created_at,
        event: design.metric.event,
        ...(design.metric.property === null ? {} : { property: design.metric.property }),
        from,
        to,
        ...(design.cupedDays === undefined ? {} : { cupedLookbackDays: design.cupedDays }),
      });
      activeUsers = counts.users;
      measured = measuredBaseline(design.metric.kind, counts, { to, lookbackDays: request.lookback_days });
      // The reduction CUPED would give, the look-back's start as everyone's exposure (the same scan).
      if (design.cupedDays !== undefined) measuredReduction = expectedVarianceReduction(covariateSumsFor(design.metric.kind, counts));
    }
    const fromEvents = measured && 'metric' in measured ? measured : undefined;
    const metric = metricOverride ?? fromEvents?.metric;
    if (metric === undefined) {
      const why = measured && 'problem' in measured ? measured.problem : 'no baseline';
      const send =
        design.metric.kind === 'conversion' ? 'baseline.rate (the share of users who convert, e.g. 0.1)' : 'baseline.mean and baseline.variance (per user)';
      throw new ApiError(422, `Cannot plan from the project's events: ${why}. Send ${send}, and baseline.users_per_day for the run time.`);
    }
    // A baseline measured from events is outside the bounds too when its values are (huge sums, one
    // rare conversion): say what was measured and what to send instead.
    // Asked for the change instead: the baseline must still allow the smallest one.
    const problem = baselineProblem(metric, request.mde ?? PLAN_BOUNDS.mde.min);
    if (problem) {
      if (metricOverride === undefined)
        throw new ApiError(
          422,
          `Cannot plan from the project's events: ${problem}. Send the baseline yourself (baseline.rate, or baseline.mean and baseline.variance), or a larger mde.`,
        );
      throw new ApiError(400, `baseline: ${problem}`);
    }
    const usersPerDay = override.users_per_day ?? (fromEvents ? fromEvents.users_per_day : undefined);

    // The reduction planned with: the request's, else the measured one when the experiment uses CUPED.
    const reduction =
      request.variance_reduction !== undefined
        ? { variance_reduction: request.variance_reduction, variance_reduction_source: 'given' as const }
        : measuredReduction !== null
          ? { variance_reduction: measuredReduction, variance_reduction_source: 'measured' as const }
          : { variance_reduction: 0, variance_reduction_source: 'none' as const };
    const mean = metric.kind === 'conversion' ? metric.baseline_rate : metric.mean;
    const variance = metric.kind === 'conversion' ? mean * (1 - mean) : metric.variance;
    const stated = {
      metric: design.metric,
      baseline: {
        rate: metric.kind === 'conversion' ? metric.baseline_rate : null,
        mean,
        variance,
        users_per_day: usersPerDay ?? null,
        source: metricOverride ? 'override' : 'events',
        users_per_day_source: override.users_per_day !== undefined ? 'override' : usersPerDay !== undefined ? 'events' : null,
        events:
          measured === undefined
            ? null
            : { from, to, lookback_days: request.lookback_days, active_users: activeUsers, days_observed: fromEvents?.days_observed ?? null },
      },
    };
    const test = {
      power: request.power,
      confidence: 1 - request.alpha,
      variants: design.variants.length,
      ...(design.weights === null ? {} : { weights: design.weights }),
      sequential: design.sequential,
      variance_reduction: reduction.variance_reduction,
    };
    const settings = {
      power: request.power,
      alpha: request.alpha,
      sequential: design.sequential,
      ...reduction,
      measured_variance_reduction: measuredReduction,
      measured_variance_reduction_users: measuredReduction === null ? null : activeUsers,
      cuped: design.cupedDays !== undefined,
      cuped_lookback_days: design.cupedDays ?? null,
      experiment_id: request.experiment_id ?? null,
    };

    if (request.weeks !== undefined) {
      const { weeks } = request;
      if (usersPerDay === undefined) {
        throw new ApiError(
          422,
          `Cannot say what change ${weeks} ${weeks === 1 ? 'week' : 'weeks'} can detect: the project's events give no users per day. Send baseline.users_per_day (the users expected to enroll per day).`,
        );
      }
      const days = weeks * 7;
      const usersTotal = Math.floor(usersPerDay * days);
      const mde =
        usersTotal >= design.variants.length ? minimumDetectableEffect({ metric, ...test, users_total: usersTotal, max_mde: PLAN_BOUNDS.mde.max }) : null;
      if (mde === null) {
        throw new ApiError(
          422,
          `Cannot plan: ${usersTotal} users in ${weeks} ${weeks === 1 ? 'week' : 'weeks'} cannot detect even the largest change the planner considers (${metric.kind === 'conversion' ? 'the rate reaching 100%, or ' : ''}+${PLAN_BOUNDS.mde.max * 100}%). Send more weeks, or baseline.users_per_day if more users will enroll.`,
        );
      }
      const shares = sharesOf(design);
      return json(200, {
        question: 'detectable_effect',
        ...stated,
        weeks,
        mde,
        mde_absolute: mde * Math.abs(mean),
        ...settings,
        variants: design.variants.map((variant, i) => ({ variant, weight: design.weights?.[i] ?? null, users: Math.floor(usersTotal * shares[i]! + 1e-9) })),
        users_total: usersTotal,
        days,
      });
    }

    const mde = request.mde!;
    const plan = sampleSize({ metric, mde, ...test, ...(usersPerDay === undefined ? {} : { users_per_day: usersPerDay }) });
    if (plan === null) {
      throw new ApiError(422, `Cannot plan: a change of ${mde} is too small to detect with any realistic number of users. Send a larger mde.`);
    }
    return json(200, {
      question: 'sample_size',
      ...stated,
      weeks: null,
      mde,
      mde_absolute: mde * Math.abs(mean),
      ...settings,
      variants: design.variants.map((variant, i) => ({ variant, weight: design.weights?.[i] ?? null, users: plan.users_per_variant[i]! })),
      users_total: plan.users_total,
      days: plan.days,
    });
  });
}

/** Each variant's share of the users, control first: its weight's, or an equal split. */
function sharesOf(design: Design): number[] {
  const weights = design.weights ?? design.variants.map(() => 1);
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
}

async function designOf(deps: PlanDeps, projectId: string, request: PlanRequest): Promise<Design> {
  if (request.experiment_id !== undefined) {
    const id = request.experiment_id;
    const experiment = isGeneratedIdShape(id) ? await deps.experiments.get(projectId, id) : undefined;
    if (!experiment) throw notFound(`Experiment ${id} not found in project ${projectId}`);
    const metric = request.metric ?? { event: experiment.goal_event, kind: 'conversion' as const };
    return {
      metric: { event: metric.event, kind: metric.kind, property: metric.property ?? null },
      variants: experiment.variants,
      weights: experiment.weights,
      sequential: request.sequential ?? experiment.sequential ?? DEFAULT_SEQUENTIAL,
      cupedDays: cupedLookbackDays({
        cuped: request.cuped ?? experiment.cuped,
        cuped_lookback_days: request.cuped_lookback_days ?? experiment.cuped_lookback_days,
      }),
    };
  }
  const variants = request.variants ?? [...DEFAULT_VARIANTS];
  const weights = request.weights ?? null;
  if (weights !== null) {
    const problem = weightsProblem(variants, weights);
    if (problem) throw new ApiError(400, `weights: ${problem}`);
  }
  const metric = request.metric!;
  return {
    metric: { event: metric.event, kind: metric.kind, property: metric.property ?? null },
    variants,
    weights,
    sequential: request.sequential ?? DEFAULT_SEQUENTIAL,
    cupedDays: cupedLookbackDays(request),
  };
}
