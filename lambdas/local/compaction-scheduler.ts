/**
 * The local stand-in for the compaction job's schedule (docs/decisions/columnar-events.md): a run at
 * start and then every interval, never two at once. A failed run is logged with the metric the AWS
 * alarm watches (CompactionFailed; DeletionFailed for a person's deletion, run after) and retried by the next run; nothing is lost meanwhile, the views'
 * tail still shows what is not compacted.
 */
import type { Deps } from '../deps';
import type { CompactionStore, RetentionStore } from '../ports';
import { createCompactionHandler } from '../handlers/compact-landing';
import type { CompactionOptions } from '../services/compact-landing';
import { errorFields, log } from '../logging/log';

export interface CompactionScheduler {
  /** Runs now (after a run in progress) as at `nowMs` (default: the clock's), resolving when done; tests and the start use it. */
  runNow(nowMs?: number): Promise<void>;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/** How the local job compacts: an hour closes a minute after it ends (the local Firehose writes at once). */
export const LOCAL_COMPACTION = {
  closeAfterMs: 60_000,
  maxHours: 24 * 7,
  graceMs: 60 * 60_000,
  landingRetentionMs: 3 * 86_400_000,
} as const satisfies Omit<CompactionOptions, 'nowMs'>;

export function scheduleCompaction(
  store: CompactionStore & RetentionStore,
  intervalMs: number | undefined,
  clock: () => number = Date.now,
  /** People's deletions, carried out after each compaction as on AWS. */
  erasure?: NonNullable<Deps['compaction']>['erasure'],
  /** Keep events this many days (TALLY_KEEP_EVENTS_DAYS); unset, forever. */
  keepEventsDays?: number,
  /** What S3 lifecycle rules do on AWS, run after each run: the export files' expiry (LocalExportFiles.expire). */
  lifecycle?: (nowMs: number) => Promise<unknown>,
): CompactionScheduler {
  let job: Promise<void> | undefined;
  // The AWS job's handler: its log lines and, on failure, the CompactionFailed metric.
  const run = (nowMs = clock()): Promise<void> => {
    job ??= createCompactionHandler({
      compaction: { store, options: LOCAL_COMPACTION, keepEventsDays, ...(erasure ? { erasure } : {}) },
      clock: () => nowMs,
    })(Number.POSITIVE_INFINITY)
      // Logged and counted (CompactionFailed) by the handler; the next run retries.
      .catch(() => undefined)
      .then(async () => {
        await lifecycle?.(nowMs);
      })
      .catch((err: unknown) => log('error', 'export files not expired', errorFields(err)))
      .finally(() => (job = undefined));
    return job;
  };
  const timer = intervalMs ? setInterval(() => void run(), intervalMs) : undefined;
  timer?.unref();
  return {
    async runNow(nowMs?: number) {
      await job;
      await run(nowMs);
    },
    async stop() {
      clearInterval(timer);
      await job;
    },
  };
}
