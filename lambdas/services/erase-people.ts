/**
 * People's deletions (docs/decisions/erasure.md): each unfinished deletion is taken through its steps
 * (domain/deletion.ts), one at a time, its progress saved after each, so a run stopped at any point
 * (a crash, a failed Lambda, its deadline) leaves the deletion at the step it was in, and the next run
 * does that step again: every step is idempotent (what it removed is gone; run again it removes 0).
 *
 * It runs inside the compaction job's run, after compaction (handlers/compact-landing.ts): runs never
 * overlap, so its rewrites of curated partitions and compaction's never race. The person's rows are
 * those received through the request's time: an ID that sends again afterwards is a new person (the
 * identities step, first, removed every item that linked it to the old one).
 */
import { randomUUID } from 'node:crypto';
import { afterStep, afterSweep, beginStep, sweeps, type Deletion, type DeletionStep } from '../domain/deletion';
import type { StreamName } from '../domain/landing-hour';
import { partitionBatches } from '../domain/partition-batches';
import { personIds, type IdLink } from '../domain/person-ids';
import { idsToSuppress } from '../domain/suppression';
import { newGeneration } from '../domain/results-base';
import { exportNamesAny } from '../domain/person-export';
import type { CompactionStore, DeletionStore, ExportFiles, ExportStore, PersonFiles, PersonRecords } from '../ports';
import { replacePartitions } from './compact-landing';

export interface ErasureDeps extends PersonRecords {
  deletions: DeletionStore;
  files: PersonFiles;
  /** The exports of people (services/export-people.ts): a deletion removes the person's, file and request. */
  exports?: { store: ExportStore; files: ExportFiles };
  /** The compaction job's store: its state's retiring list and the partitions' commits. */
  compaction: CompactionStore;
}

export interface ErasureOptions {
  nowMs: number;
  /** When each step finished, for its receipt line. */
  clock: () => number;
  /** How long a superseded generation stays readable (the compaction job's grace). */
  graceMs: number;
  /** No step starts after this time; the next run continues. */
  deadlineMs?: number;
  /** Tests: called before each step; a throw stops the run there, as a crash would. */
  beforeStep?: (deletion: Deletion, step: DeletionStep) => void | Promise<void>;
}

export interface DeletionRun {
  id: string;
  project_id: string;
  steps: number;
  done: boolean;
  /** Whether it reached a step rewriting curated partitions. */
  rewrote: boolean;
}

/**
 * A step that failed, named by the deletion's ID and the step: its message carries no client value
 * (an engine's message may quote the SQL, which holds the person's IDs), the cause keeps the original.
 */
export class DeletionStepFailed extends Error {
  constructor(
    readonly deletionId: string,
    readonly step: DeletionStep,
    cause: unknown,
  ) {
    super(`deletion ${deletionId} failed at step ${step} (${cause instanceof Error ? cause.name : typeof cause})`, { cause });
    this.name = 'DeletionStepFailed';
  }
}

/** The most rounds of following links from the IDs found so far (a group wider than this is cut, and said so in the log). */
const MAX_LINK_ROUNDS = 50;

export async function runDeletions(deps: ErasureDeps, options: ErasureOptions): Promise<DeletionRun[]> {
  const runs: DeletionRun[] = [];
  try {
    await runEach(deps, options, runs);
  } finally {
    // A partition rewritten may have lost its last rows (no file left): the readers' views follow.
    if (runs.some((r) => r.rewrote)) {
      const through = async (stream: StreamName) => (await deps.compaction.readState(stream)).compactedThrough;
      await deps.compaction.publishViews({ events: await through('events'), identities: await through('identities') });
    }
  }
  return runs;
}

async function runEach(deps: ErasureDeps, options: ErasureOptions, runs: DeletionRun[]): Promise<void> {
  for (let deletion of await deps.deletions.unfinished(options.nowMs)) {
    const run: DeletionRun = { id: deletion.id, project_id: deletion.project_id, steps: 0, done: false, rewrote: false };
    runs.push(run);
    if (sweeps(deletion, options.nowMs)) {
      await sweep(deps, options, deletion);
      run.done = true;
      continue;
    }
    while (deletion.state !== 'done' && deletion.step) {
      if (options.deadlineMs !== undefined && Date.now() >= options.deadlineMs) return;
      const step = deletion.step;
      deletion = beginStep(deletion, step);
      await deps.deletions.save(deletion);
      run.rewrote ||= step === 'curated_events' || step === 'curated_identities';
      try {
        await options.beforeStep?.(deletion, step);
        deletion = await runStep(deps, options, deletion, step);
      } catch (err) {
        throw new DeletionStepFailed(deletion.id, step, err);
      }
      await deps.deletions.save(deletion);
      run.steps++;
    }
    run.done = deletion.state === 'done';
  }
}

/**
 * A done deletion within its late-delivery window: the landing objects written since the last sweep
 * (or since the deletion's own landing steps) are rewritten without the person's rows received before
 * the request, which a late Firehose delivery may have brought. The receipt's landing lines grow.
 */
async function sweep(deps: ErasureDeps, options: ErasureOptions, d: Deletion): Promise<void> {
  const ids = d.ids ?? [d.user_id];
  const since = d.swept_at ?? d.receipt?.find((l) => l.store === 'landing_events')?.at;
  const begun = options.clock();
  try {
    const removed = {
      landing_events: await deps.files.eraseLanding('events', d.project_id, ids, d.requested_at, since),
      landing_identities: await deps.files.eraseLanding('identities', d.project_id, ids, d.requested_at, since),
    };
    await deps.deletions.save(afterSweep(d, removed, begun));
  } catch (err) {
    throw new DeletionStepFailed(d.id, 'landing_events', err);
  }
}

async function runStep(deps: ErasureDeps, options: ErasureOptions, d: Deletion, step: DeletionStep): Promise<Deletion> {
  const projectId = d.project_id;
  const ids = d.ids ?? [d.user_id];
  const through = d.requested_at;
  const done = (removed: number, found?: string[]) => afterStep(d, step, removed, options.clock(), found);
  switch (step) {
    case 'ids': {
      const found = await findPerson(deps, projectId, d.user_id);
      // Before the identities step removes the links: every ID found, the stream's included, is suppressed.
      if (d.suppress) await deps.identities.suppress(projectId, idsToSuppress(d, found), options.nowMs);
      return done(0, found);
    }
    case 'identities':
      return done(await deps.identities.forget(projectId, ids));
    case 'assignments': {
      const experiments = (await deps.experiments.list(projectId)).map((e) => e.id);
      return done(await deps.assignments.forget(projectId, experiments, ids));
    }
    case 'landing_events':
      return done(await deps.files.eraseLanding('events', projectId, ids, through));
    case 'landing_identities':
      return done(await deps.files.eraseLanding('identities', projectId, ids, through));
    case 'curated_events':
      return done(await eraseCurated(deps, options, 'events', projectId, ids, through));
    case 'curated_identities':
      return done(await eraseCurated(deps, options, 'identities', projectId, ids, through));
    case 'results_state': {
      if (!d.removed_any) return done(0);
      let removed = await deps.files.dropResultsState(projectId);
      for (const e of await deps.experiments.list(projectId)) if (await deps.results.forget(projectId, e.id)) removed++;
      return done(removed);
    }
    case 'insight_queries': {
      if (!d.removed_any) return done(0);
      const executions = await deps.insightQueries.forgetProject(projectId);
      await deps.files.dropQueryResults(executions);
      return done(executions.length);
    }
    case 'exports':
      return done(await eraseExports(deps, projectId, ids));
  }
}

/** Deletes the person's exports (an export naming any of the IDs): each file, then its request; the files removed. */
async function eraseExports(deps: ErasureDeps, projectId: string, ids: string[]): Promise<number> {
  if (!deps.exports) return 0;
  const named = new Set(ids);
  const found = (await deps.exports.store.all(projectId)).filter((e) => exportNamesAny(e, named));
  const removed = await deps.exports.files.remove(
    projectId,
    found.map((e) => e.id),
  );
  for (const e of found) await deps.exports.store.forget(e);
  return removed;
}

/** The person of `userId`: its group in the identities table and every link of the identity stream, followed until nothing new (a deletion's, an export's). */
export async function findPerson(
  deps: Pick<ErasureDeps, 'identities'> & { files: Pick<PersonFiles, 'linksOf'> },
  projectId: string,
  userId: string,
): Promise<string[]> {
  const links = new Map<string, IdLink>();
  let ids = [userId];
  for (let round = 0; round < MAX_LINK_ROUNDS; round++) {
    for (const l of [...(await deps.identities.linksOf(projectId, ids)), ...(await deps.files.linksOf(projectId, ids))]) {
      links.set(`${l.id}\u0000${l.canonical_id}`, l);
    }
    const next = personIds(userId, links.values());
    if (next.length === ids.length) return next;
    ids = next;
  }
  return ids;
}

/** Rewrites the project's curated partitions holding the person's rows as new generations without them; the rows left out. */
async function eraseCurated(
  deps: ErasureDeps,
  options: ErasureOptions,
  stream: StreamName,
  projectId: string,
  ids: string[],
  through: string,
): Promise<number> {
  const partitions = await deps.files.curatedPartitionsOf(stream, projectId, ids, through);
  if (partitions.length === 0) return 0;
  const now = new Date(options.nowMs).toISOString();
  const after = new Date(options.nowMs + options.graceMs).toISOString();
  const generation = newGeneration(now, randomUUID().replaceAll('-', '').slice(0, 12));
  let state = await deps.compaction.readState(stream);
  const batches = partitionBatches(
    partitions.map(({ projectId, dt }) => ({ projectId, dt })),
    deps.compaction.maxPartitionsPerWrite,
  );
  for (const batch of batches) {
    ({ state } = await replacePartitions(deps.compaction, stream, state, batch, generation, after, () =>
      deps.files.writeGenerationWithout(stream, batch, ids, through, generation),
    ));
  }
  return partitions.reduce((sum, p) => sum + p.rows, 0);
}
