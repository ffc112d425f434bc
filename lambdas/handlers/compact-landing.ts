/**
 * The scheduled compaction job on AWS (lambdas/entry/compact-landing.ts; docs/decisions/columnar-events.md,
 * "The job on AWS"): one run of services/compact-landing.ts with the options the stack sets, a log
 * line per stream with what it took in (hours, partitions, rows, files, bytes; no client values), and
 * a failed run made loud: the CompactionFailed metric (alarmed, lib/alarms.ts) and a failed
 * invocation. It is not retried by Lambda: the next scheduled run retries it, from the state the
 * failed run left (nothing it had not committed is deleted).
 */
import { COMPACTION_FAILED, FUNCTION_DIMENSION, METRICS_NAMESPACE, RETENTION_FAILED, RETENTION_REMOVED } from '../contract/metrics';
import { errorFields, log } from '../logging/log';
import { emitMetric, functionName } from '../logging/metric';
import type { Deps } from '../deps';
import { compactLanding } from '../services/compact-landing';
import { cutRetention } from '../services/cut-retention';

export type CompactionDeps = Pick<Deps, 'compaction' | 'clock'>;

export function createCompactionHandler(deps: CompactionDeps) {
  const job = deps.compaction;
  if (!job) throw new Error('the compaction job needs its store (lambdas/entry/athena.ts athenaCompaction)');
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
    if (job.keepEventsDays !== undefined) await retention(job.store, { nowMs: deps.clock(), keepDays: job.keepEventsDays, graceMs: job.options.graceMs });
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
