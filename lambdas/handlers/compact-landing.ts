/**
 * The scheduled compaction job on AWS (lambdas/entry/compact-landing.ts; docs/decisions/columnar-events.md,
 * "The job on AWS"): one run of services/compact-landing.ts with the options the stack sets, a log
 * line per stream with what it took in (hours, partitions, rows, files, bytes; no client values), and
 * a failed run made loud: the CompactionFailed metric (alarmed, lib/alarms.ts) and a failed
 * invocation. Then people's deletions (services/erase-people.ts), a failed step made loud the same way
 * (DeletionFailed). It is not retried by Lambda: the next scheduled run retries it, from the state the
 * failed run left (nothing it had not committed is deleted).
 */
import { COMPACTION_FAILED, DELETION_FAILED, FUNCTION_DIMENSION, METRICS_NAMESPACE } from '../contract/metrics';
import { errorFields, log } from '../logging/log';
import { emitMetric, functionName } from '../logging/metric';
import type { Deps } from '../deps';
import { compactLanding } from '../services/compact-landing';
import { runDeletions } from '../services/erase-people';

export type CompactionDeps = Pick<Deps, 'compaction' | 'clock'>;

export function createCompactionHandler(deps: CompactionDeps) {
  const job = deps.compaction;
  if (!job) throw new Error('the compaction job needs its store (lambdas/entry/athena-compaction.ts athenaCompaction)');
  return async (deadlineMs: number): Promise<void> => {
    try {
      const summaries = await compactLanding(job.store, { ...job.options, nowMs: deps.clock(), deadlineMs });
      for (const s of summaries) {
        log('info', 'compaction run', {
          stream: s.stream,
          hours: s.hours,
          partitions: s.partitions,
          rows: s.rows,
          files: s.files,
          bytes: s.bytes,
          compacted_through: s.compactedThrough ?? null,
          generations_deleted: s.generationsDeleted,
          landing_hours_deleted: s.landingHoursDeleted,
          stopped_early: s.stoppedEarly,
        });
      }
    } catch (err) {
      log('error', 'compaction failed; the next scheduled run retries it (metric CompactionFailed)', errorFields(err));
      emitMetric({ namespace: METRICS_NAMESPACE, name: COMPACTION_FAILED, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
      throw err;
    }
    if (!job.erasure) return;
    // After compaction, in the same run: runs never overlap, so a deletion's rewrites never race a compaction's.
    const { beforeStep, ...erasure } = job.erasure;
    try {
      const runs = await runDeletions(
        { ...erasure, compaction: job.store },
        { nowMs: deps.clock(), clock: deps.clock, graceMs: job.options.graceMs, deadlineMs, ...(beforeStep ? { beforeStep } : {}) },
      );
      // The deletion's ID and counts only: never the user ID or the reason.
      for (const r of runs) log('info', 'deletion run', { deletion_id: r.id, project_id: r.project_id, steps: r.steps, done: r.done });
    } catch (err) {
      log('error', 'a deletion step failed; the next scheduled run retries it from that step (metric DeletionFailed)', errorFields(err));
      emitMetric({ namespace: METRICS_NAMESPACE, name: DELETION_FAILED, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
      throw err;
    }
  };
}
