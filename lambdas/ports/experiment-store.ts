/** Experiments: configuration, name claims and status transitions. */
import type { Experiment, Transition } from '../domain/experiment';

export type ExperimentPatch = Partial<
  Pick<
    Experiment,
    'name' | 'variants' | 'weights' | 'goal_event' | 'description' | 'metrics' | 'sequential' | 'correction' | 'cuped' | 'cuped_lookback_days' | 'planned_users'
  >
>;

export interface ExperimentStore {
  create(experiment: Experiment): Promise<void>;
  get(projectId: string, id: string): Promise<Experiment | undefined>;
  list(projectId: string): Promise<Experiment[]>;
  update(current: Experiment, patch: ExperimentPatch): Promise<Experiment>;
  transition(projectId: string, id: string, transition: Transition, atIso: string): Promise<Experiment>;
}

/** A spelling of the name is already claimed by another experiment (ownerId; undefined if it went meanwhile). */
export class NameTakenError extends Error {
  override name = 'NameTakenError';
  constructor(
    readonly spelling: string,
    readonly ownerId: string | undefined,
  ) {
    super(`name spelling "${spelling}" is taken`);
  }
}

/**
 * The experiment's status did not allow the change, or (an edit, status still created) another edit
 * came between this one's read and its write; carries the experiment as found.
 */
export class StatusConflictError extends Error {
  override name = 'StatusConflictError';
  constructor(readonly current: Experiment) {
    super(`status is ${current.status}`);
  }
}
