/**
 * A stream's compaction state (contract/landing.ts compactionStateKey): the last landing hour whose
 * events are all in the curated partitions, and the generations waiting to be deleted. Stored as JSON
 * (an S3 object on AWS, a file locally) in snake_case; read back checked. Pure.
 */
import { isLandingHour } from './landing-hour';
import type { CuratedPartition } from './partition-batches';

/** A generation to delete once `after` has passed, unless its partition points at it by then. */
export interface RetiringGeneration extends CuratedPartition {
  generation: string;
  /** ISO 8601. */
  after: string;
}

export interface CompactionState {
  /** Every landing hour up to this one is in the curated partitions; undefined before the first run. */
  compactedThrough: string | undefined;
  /** Generations superseded, or written by a run that may have stopped before committing them. */
  retiring: RetiringGeneration[];
}

export const EMPTY_COMPACTION_STATE: CompactionState = { compactedThrough: undefined, retiring: [] };

export function serializeCompactionState(state: CompactionState): string {
  return (
    JSON.stringify({
      compacted_through: state.compactedThrough ?? null,
      retiring: state.retiring.map((g) => ({ project_id: g.projectId, dt: g.dt, generation: g.generation, after: g.after })),
    }) + '\n'
  );
}

const GENERATION = /^[0-9A-Za-z-]+$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The state read back, or an error naming where and what is wrong (a state is never guessed). */
export function parseCompactionState(text: string, where: string): CompactionState {
  const fail = (what: string): never => {
    throw new Error(`${where} is not a compaction state: ${what}`);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail('not JSON');
  }
  if (!parsed || typeof parsed !== 'object') return fail('not an object');
  const { compacted_through, retiring } = parsed as Record<string, unknown>;
  if (compacted_through !== null && !(typeof compacted_through === 'string' && isLandingHour(compacted_through)))
    fail('compacted_through is not an hour (yyyy-MM-dd-HH)');
  if (!Array.isArray(retiring)) return fail('retiring is not a list');
  return {
    compactedThrough: (compacted_through as string | null) ?? undefined,
    retiring: retiring.map((g: Record<string, unknown>) => {
      if (!g || typeof g.project_id !== 'string' || typeof g.dt !== 'string' || !DAY.test(g.dt)) fail('a retiring generation names no partition');
      if (typeof g.generation !== 'string' || !GENERATION.test(g.generation)) fail('a retiring generation has no generation name');
      if (typeof g.after !== 'string' || !Number.isFinite(Date.parse(g.after))) fail('a retiring generation has no time');
      return { projectId: g.project_id as string, dt: g.dt as string, generation: g.generation as string, after: g.after as string };
    }),
  };
}
