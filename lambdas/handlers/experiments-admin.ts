/** The dashboard's experiment operations under /admin/v1/projects/{project_id}/experiments. */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { freeTextRule, textRule } from '../domain/client-text-schema';
import { DEFAULT_VARIANTS, snakeCase, transitionRefusal, type Experiment, type Transition } from '../domain/experiment';
import { mapLimit } from '../domain/concurrency';
import { backdatedStart } from '../domain/backdated-start';
import { EXPERIMENT_LIMITS } from '../domain/experiment-fields';
import type { ExperimentMetric } from '../domain/experiment-metric';
import {
  DEFAULT_CORRECTION,
  DEFAULT_CUPED,
  DEFAULT_CUPED_LOOKBACK_DAYS,
  CUPED_LOOKBACK_BOUNDS,
  CUPED_LOOKBACK_TEXT,
  DEFAULT_SEQUENTIAL,
  GUARDRAIL_DIRECTIONS,
  METRIC_LIMITS,
  METRIC_ROLES,
  metricsProblem,
  CAP_BOUNDS,
  CAP_TEXT,
} from '../domain/experiment-metric-fields';
import { METRIC_KINDS } from '../domain/metric-moments';
import { CORRECTIONS } from '../domain/p-value-correction';
import { propertyNameSchema } from '../domain/property-name';
import { weightsProblem } from '../domain/variant-weights';
import { MAX_PLANNED_USERS } from '../domain/sample-size';
import { summarizeResults } from '../domain/results-summary';
import { sdkSnakeCase } from '../domain/sdk-snake-case';
import { ApiError } from '../http/api-error';
import { json } from '../http/event';
import { jsonBody } from '../http/validate';
import { NameTakenError, StatusConflictError, type ExperimentStore, type ProjectStore, type ResultsStore } from '../ports';
import { requireExperiment, requireProject, wrapAdmin, type AdminDeps } from './admin';

export const MAX_VARIANTS = EXPERIMENT_LIMITS.maxVariants;
const L = EXPERIMENT_LIMITS;

const Name = textRule(
  z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty').max(L.nameLength, `name is longer than ${L.nameLength} characters`),
  'name',
).refine((n) => snakeCase(n) !== '', 'name must contain letters or digits');

export const Variants = z
  .array(
    textRule(
      z
        .string({ error: 'each variant must be a string' })
        .trim()
        .min(1, 'variants must not be empty strings')
        .max(L.variantLength, `a variant is longer than ${L.variantLength} characters`),
      'a variant',
    ),
    {
      error: 'variants must be an array of strings',
    },
  )
  .min(L.minVariants, 'variants needs at least two entries')
  .max(MAX_VARIANTS, `variants may have at most ${MAX_VARIANTS} entries`)
  .refine((v) => new Set(v).size === v.length, 'variants must be unique');

/** Whole percentages, one per variant; the rules across fields (count, sum) are weightsProblem's. */
export const Weights = z
  .array(z.number({ error: 'each weight must be a number (a whole percentage)' }).int('weights must be whole percentages'), {
    error: 'weights must be an array of whole percentages, one per variant, or null for an equal split',
  })
  .nullable();

const GoalEvent = textRule(
  z
    .string({ error: (iss) => (iss.input === undefined ? 'goal_event is required' : 'goal_event must be a string') })
    .min(1, 'goal_event must not be empty')
    .max(L.goalEventLength, `goal_event is longer than ${L.goalEventLength} characters`),
  'goal_event',
);

const Description = freeTextRule(
  z.string({ error: 'description must be a string' }).max(L.descriptionLength, `description is longer than ${L.descriptionLength} characters`),
  'description',
);

const oneOf = <T extends string>(field: string, values: readonly T[], more = '') =>
  z.enum(values as unknown as readonly [T, ...T[]], { error: `${field} must be one of ${values.map((v) => `"${v}"`).join(', ')}${more}` });

export const Metric = z
  .object(
    {
      name: textRule(
        z
          .string({ error: (iss) => (iss.input === undefined ? 'name is required' : 'name must be a string') })
          .trim()
          .min(1, 'name must not be empty')
          .max(METRIC_LIMITS.nameLength, `name is longer than ${METRIC_LIMITS.nameLength} characters`),
        'name',
      ),
      event: textRule(
        z
          .string({ error: (iss) => (iss.input === undefined ? 'event is required: the event this metric counts' : 'event must be a string') })
          .min(1, 'event must not be empty')
          .max(METRIC_LIMITS.eventLength, `event is longer than ${METRIC_LIMITS.eventLength} characters`),
        'event',
      ),
      kind: oneOf('kind', METRIC_KINDS),
      property: propertyNameSchema('property', 'the numeric event property a sum metric sums').optional(),
      role: oneOf('role', METRIC_ROLES),
      direction: oneOf('direction', GUARDRAIL_DIRECTIONS).optional(),
      cap: z
        .number({ error: `cap must be a number ${CAP_TEXT}, or left out for none` })
        .min(CAP_BOUNDS.min, `cap must be ${CAP_TEXT}, or left out for none`)
        .max(CAP_BOUNDS.max, `cap must be ${CAP_TEXT}, or left out for none`)
        .optional(),
    },
    { error: 'each metric must be an object { name, event, kind, role, property?, direction?, cap? }' },
  )
  .strict();

const TOO_MANY_METRICS = `metrics may have at most ${METRIC_LIMITS.maxMetrics} entries (the goal event is the primary metric on top of them)`;

/** Counted before any entry is looked at, so a huge array is refused with one message, not one per entry. */
const Metrics = z.preprocess(
  (value, ctx) => {
    if (Array.isArray(value) && value.length > METRIC_LIMITS.maxMetrics) ctx.addIssue({ code: 'custom', message: TOO_MANY_METRICS, input: value });
    return value;
  },
  z.array(Metric, { error: `metrics must be an array of at most ${METRIC_LIMITS.maxMetrics} metrics` }).max(METRIC_LIMITS.maxMetrics, TOO_MANY_METRICS),
);

export const Sequential = z.boolean({ error: 'sequential must be true (always-valid intervals, the default) or false' });

/** CUPED (docs/decisions/cuped.md): on by default, with the days of each user's pre-exposure data it reads. */
export const Cuped = z.boolean({ error: "cuped must be true (adjust each metric by the user's own pre-exposure data, the default) or false" });
export const CupedLookbackDays = z
  .number({ error: `cuped_lookback_days must be ${CUPED_LOOKBACK_TEXT}` })
  .int(`cuped_lookback_days must be ${CUPED_LOOKBACK_TEXT}`)
  .min(CUPED_LOOKBACK_BOUNDS.min, `cuped_lookback_days must be ${CUPED_LOOKBACK_TEXT}`)
  .max(CUPED_LOOKBACK_BOUNDS.max, `cuped_lookback_days must be ${CUPED_LOOKBACK_TEXT}`);

/** The plan's users_total (POST .../plan), or null for no plan. */
export const PlannedUsers = z
  .number({ error: "planned_users must be a whole number of users (the plan's users_total), or null for no plan" })
  .int('planned_users must be a whole number of users')
  .min(1, 'planned_users must be at least 1')
  .max(MAX_PLANNED_USERS, `planned_users must be at most ${MAX_PLANNED_USERS}`)
  .nullable();

export const CorrectionField = oneOf('correction', CORRECTIONS, ', or null for none').nullable();

export const CreateExperiment = z.object({
  name: z
    .unknown()
    .refine((v) => v !== undefined, 'name is required')
    .pipe(Name),
  variants: Variants.optional(),
  weights: Weights.optional(),
  goal_event: GoalEvent,
  description: Description.optional(),
  metrics: Metrics.optional(),
  sequential: Sequential.optional(),
  correction: CorrectionField.optional(),
  cuped: Cuped.optional(),
  cuped_lookback_days: CupedLookbackDays.optional(),
  planned_users: PlannedUsers.optional(),
});

export const PatchExperiment = z
  .object({
    name: Name.optional(),
    variants: Variants.optional(),
    weights: Weights.optional(),
    goal_event: GoalEvent.optional(),
    description: Description.nullable().optional(),
    metrics: Metrics.optional(),
    sequential: Sequential.optional(),
    correction: CorrectionField.optional(),
    cuped: Cuped.optional(),
    cuped_lookback_days: CupedLookbackDays.optional(),
    planned_users: PlannedUsers.optional(),
  })
  .strict();

/**
 * 400 naming the rule the weights break for the variants they go with (weightsProblem). On a PATCH
 * these are the experiment's after the change: weights kept while the variants change must still fit.
 */
function checkWeights(variants: readonly string[], weights: readonly number[] | null): void {
  const problem = weights === null ? undefined : weightsProblem(variants, weights);
  if (problem) throw new ApiError(400, `weights: ${problem}`);
}

/**
 * 400 naming the rule the metrics break across fields (metricsProblem). On a PATCH these are the
 * experiment's after the change: a new goal event must not take a metric's name.
 */
function checkMetrics(goalEvent: string, metrics: readonly ExperimentMetric[]): void {
  const problem = metricsProblem(goalEvent, metrics);
  if (problem) throw new ApiError(400, `metrics.${problem.path}: ${problem.message}`);
}

export interface ExperimentAdminDeps extends AdminDeps {
  projects: ProjectStore;
  experiments: ExperimentStore;
  clock: () => number;
}

/**
 * 409 naming the clash: the spelling both names share and the experiment holding it. Names must stay
 * unambiguous as configured, in Tally's snake_case and in the MGM SDKs' snake_case, because each of
 * them may name an experiment in exposures and `$experiment_*` super properties.
 */
async function nameTaken(deps: ExperimentAdminDeps, projectId: string, name: string, err: NameTakenError): Promise<ApiError> {
  const owner = err.ownerId ? await deps.experiments.get(projectId, err.ownerId).catch(() => undefined) : undefined;
  const holder = owner ? `experiment ${owner.id} ("${owner.name}")` : 'another experiment';
  return new ApiError(
    409,
    `The name "${name}" clashes with ${holder} in this project: both are spelled "${err.spelling}". Names must differ as written, in snake_case (${snakeCase(name)}) and in the SDKs' snake_case (${sdkSnakeCase(name)}); choose another name.`,
  );
}

export function createExperimentsCreateHandler(deps: ExperimentAdminDeps) {
  return wrapAdmin('admin-experiments-create', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const input = await jsonBody(event, CreateExperiment);
    const variants = input.variants ?? [...DEFAULT_VARIANTS];
    const weights = input.weights ?? null;
    checkWeights(variants, weights);
    const metrics = input.metrics ?? [];
    checkMetrics(input.goal_event, metrics);
    const experiment: Experiment = {
      id: randomUUID(),
      project_id: project.id,
      name: input.name,
      variants,
      weights,
      goal_event: input.goal_event,
      metrics,
      sequential: input.sequential ?? DEFAULT_SEQUENTIAL,
      correction: input.correction === undefined ? DEFAULT_CORRECTION : input.correction,
      cuped: input.cuped ?? DEFAULT_CUPED,
      cuped_lookback_days: input.cuped_lookback_days ?? DEFAULT_CUPED_LOOKBACK_DAYS,
      planned_users: input.planned_users ?? null,
      description: input.description ?? null,
      status: 'created',
      created_at: new Date(deps.clock()).toISOString(),
      started_at: null,
      stopped_at: null,
    };
    try {
      await deps.experiments.create(experiment);
    } catch (err) {
      if (err instanceof NameTakenError) throw await nameTaken(deps, project.id, experiment.name, err);
      throw err;
    }
    return json(201, experiment);
  });
}

/** Stored results read at once for the list: a project's experiments are tens, each one GetItem. */
const SUMMARY_READS = 8;

export interface ExperimentsListDeps extends ExperimentAdminDeps {
  results: ResultsStore;
}

/** The experiments, each with its stored results at a glance (`results_summary`, null until computed). */
export function createExperimentsListHandler(deps: ExperimentsListDeps) {
  return wrapAdmin('admin-experiments-list', deps, async (event) => {
    const project = await requireProject(deps.projects, event);
    const experiments = await deps.experiments.list(project.id);
    const withSummaries = await mapLimit(experiments, SUMMARY_READS, async (experiment) => {
      const stored = experiment.status === 'created' ? undefined : await deps.results.get(project.id, experiment.id);
      return { ...experiment, results_summary: stored ? summarizeResults(stored, experiment) : null };
    });
    return json(200, { experiments: withSummaries });
  });
}

export function createExperimentsGetHandler(deps: ExperimentAdminDeps) {
  return wrapAdmin('admin-experiments-get', deps, async (event) => json(200, (await requireExperiment(deps, event)).experiment));
}

export function createExperimentsUpdateHandler(deps: ExperimentAdminDeps) {
  return wrapAdmin('admin-experiments-update', deps, async (event) => {
    const { experiment: current } = await requireExperiment(deps, event);
    const patch = await jsonBody(event, PatchExperiment);
    if (current.status !== 'created') {
      throw new ApiError(409, `Cannot change an experiment whose status is ${current.status}; only a created experiment can be edited`);
    }
    checkWeights(patch.variants ?? current.variants, patch.weights !== undefined ? patch.weights : current.weights);
    checkMetrics(patch.goal_event ?? current.goal_event, patch.metrics ?? current.metrics ?? []);
    try {
      return json(200, await deps.experiments.update(current, patch));
    } catch (err) {
      if (err instanceof NameTakenError) throw await nameTaken(deps, current.project_id, patch.name!, err);
      if (err instanceof StatusConflictError && err.current.status === 'created') {
        throw new ApiError(409, 'The experiment was changed by another request while this change was being applied; load it again and resend your change');
      }
      if (err instanceof StatusConflictError) {
        throw new ApiError(409, `Cannot change an experiment whose status is ${err.current.status}; only a created experiment can be edited`);
      }
      throw err;
    }
  });
}

/** The start's optional body: when the experiment started, if before now (domain/backdated-start.ts). */
export const StartExperiment = z.strictObject({
  started_at: z.string({ error: 'started_at must be an ISO 8601 time with a time zone, e.g. 2026-05-01T09:00:00Z' }).optional(),
});

/** When the transition happens: now, or for a start, the earlier time its body names. */
async function transitionTime(transition: Transition, event: Parameters<typeof jsonBody>[0], nowMs: number): Promise<string> {
  if (transition !== 'start' || !event.body?.trim()) return new Date(nowMs).toISOString();
  const { started_at } = await jsonBody(event, StartExperiment);
  if (started_at === undefined) return new Date(nowMs).toISOString();
  const start = backdatedStart(started_at, nowMs);
  if ('problem' in start) throw new ApiError(400, `started_at: ${start.problem}`);
  return new Date(start.ms).toISOString();
}

function transitionHandler(transition: Transition, deps: ExperimentAdminDeps) {
  return wrapAdmin(`admin-experiments-${transition}`, deps, async (event) => {
    const { experiment: current } = await requireExperiment(deps, event);
    const at = await transitionTime(transition, event, deps.clock());
    try {
      return json(200, await deps.experiments.transition(current.project_id, current.id, transition, at));
    } catch (err) {
      if (err instanceof StatusConflictError) throw new ApiError(409, transitionRefusal(transition, err.current.status));
      throw err;
    }
  });
}

export const createExperimentsStartHandler = (deps: ExperimentAdminDeps) => transitionHandler('start', deps);
export const createExperimentsStopHandler = (deps: ExperimentAdminDeps) => transitionHandler('stop', deps);
