/**
 * The fields of an experiment as people fill them in: their limits (the admin API enforces the same,
 * lambdas/handlers/experiments-admin.ts) and, for the dashboard to say before sending anything, what is
 * wrong with a draft, in plain words. Pure.
 */
import { experimentNameSpellings, snakeCase } from './experiment';
import { LIMITS } from './limits';
import { WEIGHT_TOTAL } from './variant-weights';

export const EXPERIMENT_LIMITS = {
  nameLength: 200,
  variantLength: 100,
  minVariants: 2,
  maxVariants: 26,
  descriptionLength: 2000,
  goalEventLength: LIMITS.maxEventNameLength,
} as const;

export type ExperimentField = 'name' | 'goal_event' | 'variants' | 'weights' | 'description';

export interface ExperimentDraft {
  name: string;
  goal_event: string;
  variants: string[];
  /** As typed, one per variant; null: an equal split (domain/variant-weights.ts). */
  weights: string[] | null;
  description: string;
}

/** The draft's weights as the API takes them: whole numbers, or null for an equal split. */
export function draftWeights(draft: Pick<ExperimentDraft, 'weights'>): number[] | null {
  return draft.weights === null ? null : draft.weights.map((w) => Number(w.trim()));
}

/**
 * The other experiment whose name `name` clashes with: names must differ as written and in each
 * snake_case spelling (experimentNameSpellings), which the API enforces with name claims.
 */
export function clashingName(name: string, others: readonly string[]): string | undefined {
  const mine = new Set(experimentNameSpellings(name.trim()));
  return others.find((other) => experimentNameSpellings(other).some((spelling) => mine.has(spelling)));
}

/**
 * What a person must change before the draft can be saved, per field; empty when nothing. `others`:
 * the names of the project's other experiments, which the name must not clash with.
 */
export function experimentDraftProblems(draft: ExperimentDraft, others: readonly string[] = []): Partial<Record<ExperimentField, string>> {
  const problems: Partial<Record<ExperimentField, string>> = {};
  const L = EXPERIMENT_LIMITS;
  const name = draft.name.trim();
  const clash = name ? clashingName(name, others) : undefined;
  if (!name) problems.name = 'Give the experiment a name, for example “Checkout button”.';
  else if (name.length > L.nameLength) problems.name = `Shorten the name to ${L.nameLength} characters or fewer (it has ${name.length}).`;
  else if (snakeCase(name) === '') problems.name = 'Use at least one letter or digit in the name.';
  else if (clash !== undefined) {
    problems.name = `Another experiment is called “${clash}”: names must differ by more than case, spaces and punctuation. Choose another name.`;
  }

  const goal = draft.goal_event;
  if (!goal.trim()) problems.goal_event = 'Choose the goal event: the event that counts as a conversion, for example “purchase”.';
  else if (goal.length > L.goalEventLength) problems.goal_event = `Event names have at most ${L.goalEventLength} characters (this one has ${goal.length}).`;

  const variants = draft.variants.map((v) => v.trim());
  const empty = variants.findIndex((v) => v === '');
  const long = variants.findIndex((v) => v.length > L.variantLength);
  const repeated = variants.find((v, i) => v !== '' && variants.indexOf(v) !== i);
  if (variants.length < L.minVariants) problems.variants = `An experiment needs at least ${L.minVariants} variants: the control and one to compare with it.`;
  else if (variants.length > L.maxVariants) problems.variants = `An experiment has at most ${L.maxVariants} variants.`;
  else if (empty >= 0) problems.variants = `Give every variant a name: variant ${empty + 1} is empty.`;
  else if (long >= 0) problems.variants = `Shorten variant ${long + 1} to ${L.variantLength} characters or fewer.`;
  else if (repeated !== undefined) problems.variants = `Give each variant its own name: “${repeated}” appears more than once.`;

  if (draft.weights !== null) {
    const notWhole = draft.weights.findIndex((w) => !/^\d+$/.test(w.trim()));
    const total = draftWeights(draft)!.reduce((a, b) => a + b, 0);
    const zero = draftWeights(draft)!.findIndex((w) => w < 1);
    if (draft.weights.length !== variants.length) problems.weights = 'Give every variant a weight.';
    else if (notWhole >= 0) problems.weights = `Weights are whole percentages: give variant ${notWhole + 1} a number from 1 to 99.`;
    else if (zero >= 0) problems.weights = `Give variant ${zero + 1} at least 1%, or remove it: a variant without traffic cannot be compared.`;
    else if (total !== WEIGHT_TOTAL) problems.weights = `The weights add up to ${total}%: make them add up to ${WEIGHT_TOTAL}%.`;
  }

  if (draft.description.length > L.descriptionLength) {
    problems.description = `Shorten the description to ${L.descriptionLength} characters or fewer (it has ${draft.description.length}).`;
  }
  return problems;
}
