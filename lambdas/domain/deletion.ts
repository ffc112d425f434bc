/**
 * A person's deletion (docs/decisions/erasure.md; docs/api.md "Deletions"): what is requested, the
 * steps a run takes it through, one at a time, each recorded before the next starts, and its receipt.
 * Pure.
 */
import * as z from 'zod';
import { LIMITS } from './limits';
import { textProblem } from './client-text';

/** How long after its request a deletion's data is physically gone, at the latest (docs/privacy.md). */
export const DELETION_BOUND_MS = 24 * 3_600_000;

/**
 * How long after a request an object holding events received before it can still land: Firehose
 * retains Direct PUT records for 24 hours while it retries S3, after its buffering interval (at most
 * 900 s); the compaction job's close allowance (lib/grants.ts compactionCloseAfterSeconds) is the same.
 */
export const LATE_DELIVERY_MS = 24 * 3_600_000 + 900_000;

/** Whether a done deletion still sweeps late landing objects at `nowMs`. */
export const sweeps = (d: Deletion, nowMs: number): boolean =>
  d.state === 'done' && d.sweep_until !== undefined && d.sweep_until > new Date(nowMs).toISOString();

/** The deletion after a sweep begun at `nowMs` removed `removed` more landing rows of each stream. */
export function afterSweep(d: Deletion, removed: Record<'landing_events' | 'landing_identities', number>, nowMs: number): Deletion {
  const at = new Date(nowMs).toISOString();
  const receipt = (d.receipt ?? []).map((l) =>
    l.store === 'landing_events' || l.store === 'landing_identities' ? (removed[l.store] > 0 ? { ...l, removed: l.removed + removed[l.store], at } : l) : l,
  );
  return { ...d, receipt, swept_at: at };
}

/** The longest user ID a deletion takes: the longest an event may carry (domain/limits.ts). */
export const MAX_DELETION_USER_ID = LIMITS.maxFieldLength;
export const MAX_DELETION_REASON = 500;

/** The user ID naming the person a request is about (a deletion's, an export's: domain/person-export.ts). */
export const personUserId = (verb: 'delete' | 'export') =>
  z
    .string({ error: `user_id must be a string: the ID of the person to ${verb}` })
    .min(1, `user_id must not be empty: give the ID of the person to ${verb}`)
    .max(MAX_DELETION_USER_ID, `user_id must be at most ${MAX_DELETION_USER_ID} characters`)
    // As ingestion refuses it in an event (domain/client-text.ts): no event carries such an ID.
    .superRefine((value, ctx) => {
      const problem = textProblem('user_id', value);
      if (problem) ctx.addIssue({ code: 'custom', message: `${problem}: no event can carry such an ID` });
    });

export const CreateDeletion = z.strictObject({
  user_id: personUserId('delete'),
  reason: z.string().max(MAX_DELETION_REASON, `reason must be at most ${MAX_DELETION_REASON} characters`).optional(),
  suppress: z.boolean({ error: 'suppress must be true or false' }).optional(),
});

/**
 * The steps, in order. The identities table goes first: from then on an event of these IDs starts a
 * new person (or, suppressed, is dropped), so what the later steps remove cannot grow back.
 */
export const DELETION_STEPS = [
  'ids',
  'identities',
  'assignments',
  'landing_events',
  'curated_events',
  'landing_identities',
  'curated_identities',
  'results_state',
  'insight_queries',
  // The person's exports (domain/person-export.ts): their files and requests.
  'exports',
] as const;
export type DeletionStep = (typeof DELETION_STEPS)[number];

export interface ReceiptLine {
  store: Exclude<DeletionStep, 'ids'>;
  removed: number;
  at: string;
}

export interface Deletion {
  id: string;
  project_id: string;
  user_id: string;
  reason: string | null;
  suppress: boolean;
  state: 'pending' | 'running' | 'done';
  requested_at: string;
  requested_by: string;
  due_by: string;
  /**
   * Until when landing objects are swept again for the person's rows (ISO 8601): an object holding
   * events received before the request can land up to the compaction's close allowance after it
   * (Firehose retrying S3). Absent on a deletion stored before sweeps.
   */
  sweep_until?: string;
  /** When the latest sweep began: objects written before it were swept already. */
  swept_at?: string;
  /** The next step to run; absent when done. */
  step?: DeletionStep;
  /** The step a run began and has not recorded as done yet: found again by a run, it was interrupted. */
  began?: DeletionStep;
  /**
   * Whether anything of the person may have been removed: a receipt line above 0, or a step that was
   * interrupted (it may have removed rows it never counted). Derived data (the results job's state,
   * cached insight answers) is dropped only then: a person with no data changes no answer.
   */
  removed_any?: boolean;
  finished_at?: string;
  ids?: string[];
  receipt?: ReceiptLine[];
}

export function newDeletion(
  fields: Pick<Deletion, 'id' | 'project_id' | 'user_id' | 'requested_by'> & { reason?: string; suppress?: boolean; nowMs: number; lateDeliveryMs?: number },
): Deletion {
  return {
    id: fields.id,
    project_id: fields.project_id,
    user_id: fields.user_id,
    reason: fields.reason ?? null,
    suppress: fields.suppress ?? false,
    state: 'pending',
    requested_at: new Date(fields.nowMs).toISOString(),
    requested_by: fields.requested_by,
    due_by: new Date(fields.nowMs + DELETION_BOUND_MS).toISOString(),
    sweep_until: new Date(fields.nowMs + (fields.lateDeliveryMs ?? LATE_DELIVERY_MS)).toISOString(),
    step: 'ids',
    receipt: [],
  };
}

/** The deletion once `step` is done: the next step, its receipt line, and done after the last one. */
export function afterStep(d: Deletion, step: DeletionStep, removed: number, nowMs: number, ids?: string[]): Deletion {
  const at = new Date(nowMs).toISOString();
  const index = DELETION_STEPS.indexOf(step);
  const next = DELETION_STEPS[index + 1];
  const receipt = step === 'ids' ? (d.receipt ?? []) : [...(d.receipt ?? []).filter((l) => l.store !== step), { store: step, removed, at }];
  const { step: _done, began: _began, ...rest } = d;
  return {
    ...rest,
    removed_any: (d.removed_any ?? false) || removed > 0,
    ...(ids ? { ids } : {}),
    receipt,
    ...(next ? { state: 'running', step: next } : { state: 'done', finished_at: at }),
  };
}

/** The deletion as a run begins `step`: if a run began it before and never finished it, that run was interrupted. */
export function beginStep(d: Deletion, step: DeletionStep): Deletion {
  return { ...d, began: step, removed_any: (d.removed_any ?? false) || d.began === step };
}

/** What the API shows: everything but the progress bookkeeping. */
export function deletionView({
  step: _step,
  began: _began,
  removed_any: _removed,
  swept_at: _swept,
  ...d
}: Deletion): Omit<Deletion, 'step' | 'began' | 'removed_any' | 'swept_at'> {
  return d;
}
