/**
 * The scheduled compaction job on AWS (lambdas/entry/compact-landing.ts; docs/decisions/columnar-events.md,
 * "The job on AWS"): one run of services/compact-landing.ts with the options the stack sets, a log
 * line per stream with what it took in (hours, partitions, rows, files, bytes; no client values), a
 * run that wrote more files than the curated layout's goal made loud (CuratedFilesOverGoal, alarmed:
 * on AWS, UNLOAD decides the files), and a failed run made loud: the CompactionFailed metric (alarmed, lib/alarms.ts) and a failed
 * invocation. Then people's deletions (services/erase-people.ts), a failed step made loud the same way
 * (DeletionFailed), then people's exports (services/export-people.ts, ExportFailed). It is not retried by Lambda: the next scheduled run retries it, from the state the
 * failed run left (nothing it had not committed is deleted).
 */
import {
  COMPACTION_FAILED,
  CURATED_FILES_OVER_GOAL,
  DELETION_FAILED,
  EXPORT_FAILED,
  FUNCTION_DIMENSION,
  METRICS_NAMESPACE,
  RETENTION_FAILED,
  RETENTION_REMOVED,
} from '../contract/metrics';
import { errorFields, log } from '../logging/log';
import { emitMetric, functionName } from '../logging/metric';
import type { Deps } from '../deps';
import { filesOverGoal } from '../domain/curated-files-goal';
import { compactLanding } from '../services/compact-landing';
import { cutRetention } from '../services/cut-retention';
import { runDeletions } from '../services/erase-people';
import { runExports } from '../services/export-people';

export type CompactionDeps = Pick<Deps, 'compaction' | 'clock'>;

export function createCompactionHandler(deps: CompactionDeps) {
  const job = deps.compaction;
  if (!job) throw new Error('the compaction job needs its store (lambdas/entry/compaction-wiring.ts athenaCompaction)');
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
        const over = filesOverGoal(s);
        if (over > 0) {
          log('warn', 'compaction wrote more curated files than one per 128 MiB of each partition (metric CuratedFilesOverGoal)', {
            stream: s.stream,
            partitions: s.partitions,
            files: s.files,
            bytes: s.bytes,
            files_over_goal: over,
          });
          emitMetric({ namespace: METRICS_NAMESPACE, name: CURATED_FILES_OVER_GOAL, value: over, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
        }
      }
    } catch (err) {
      log('error', 'compaction failed; the next scheduled run retries it (metric CompactionFailed)', errorFields(err));
      emitMetric({ namespace: METRICS_NAMESPACE, name: COMPACTION_FAILED, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
      throw err;
    }
    // Then, in the same run (runs never overlap, so nothing here races a compaction's commit): people's
    // deletions and exports, and the retention cut. Each is tried even when another failed (each failure
    // is logged and counted by itself); the run fails with the first failure, and the next run retries.
    let failed: unknown;
    const attempt = async (step: () => Promise<void>) => {
      try {
        await step();
      } catch (err) {
        failed ??= err;
      }
    };
    await attempt(() => peopleRequests(job, deps, deadlineMs));
    const keepDays = job.keepEventsDays;
    if (keepDays !== undefined) await attempt(() => retention(job.store, { nowMs: deps.clock(), keepDays, graceMs: job.options.graceMs }));
    if (failed !== undefined) throw failed;
  };
}

/**
 * The retention cut after compaction (services/cut-retention.ts): a summary line per stream (the day
 * kept from and counts; no client values), RetentionRemoved when it removed partitions, and a failed
 * cut made loud (RetentionFailed, alarmed, and a failed invocation); the next run retries it.
 */
async function retention(store: NonNullable<CompactionDeps['compaction']>['store'], options: Parameters<typeof cutRetention>[1]): Promise<void> {
  const dimensions = { [FUNCTION_DIMENSION]: functionName() };
  try {
    for (const cut of await cutRetention(store, options)) {
      log('info', 'retention cut', {
        stream: cut.stream,
        keep_days: options.keepDays,
        kept_from: cut.keptFrom,
        partitions_removed: cut.partitions,
        days_removed: cut.days,
      });
      if (cut.partitions > 0) emitMetric({ namespace: METRICS_NAMESPACE, name: RETENTION_REMOVED, value: cut.partitions, dimensions });
    }
  } catch (err) {
    log('error', 'retention cut failed; events older than the retention stay until a run succeeds (metric RetentionFailed)', errorFields(err));
    emitMetric({ namespace: METRICS_NAMESPACE, name: RETENTION_FAILED, dimensions });
    throw err;
  }
}

/** People's deletions (DeletionFailed on a failed step), then their exports (ExportFailed): after compaction. */
async function peopleRequests(job: NonNullable<CompactionDeps['compaction']>, deps: CompactionDeps, deadlineMs: number): Promise<void> {
  if (!job.erasure) return;
  const { beforeStep, exportRows, ...erasure } = job.erasure;
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
  if (!exportRows || !erasure.exports) return;
  // Exports after deletions, in the same run: a deletion requested before an export's run removes it first.
  try {
    const exports = await runExports(
      { ...erasure, exports: erasure.exports.store, exportFiles: erasure.exports.files, rows: exportRows },
      { clock: deps.clock, deadlineMs },
    );
    for (const r of exports) log('info', 'export run', { export_id: r.id, project_id: r.project_id, done: r.done });
  } catch (err) {
    log('error', 'an export failed; the next scheduled run does it again (metric ExportFailed)', errorFields(err));
    emitMetric({ namespace: METRICS_NAMESPACE, name: EXPORT_FAILED, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
    throw err;
  }
}
