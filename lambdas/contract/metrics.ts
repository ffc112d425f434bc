/**
 * Tally's custom CloudWatch metrics (embedded metric format, lambdas/logging/metric.ts), shared by the
 * Lambdas that emit them and the CDK app's alarms (lib/alarms.ts), so both name them the same.
 */
export const METRICS_NAMESPACE = 'Tally';

/**
 * A results run that could not write or commit its state slice (Athena INSERT INTO, or locally the
 * Parquet file or watermark.json): the results stay exact (counted from the watermark still
 * committed), but the raw data read per run grows until a write succeeds. Dimension: FunctionName.
 */
export const RESULTS_STATE_WRITE_FAILED = 'ResultsStateWriteFailed';

/**
 * A results computation found a guardrail metric breached (issue 22: a variant moved it in its bad
 * direction significantly). One per computation that finds it, so the alarm stays in alarm while an
 * experiment runs breached; no per-experiment dimension (the log line next to it names the project and
 * experiment). Dimension: FunctionName.
 */
export const GUARDRAIL_BREACHED = 'GuardrailBreached';

/** The dimension the metrics carry: the Lambda function's name (logging/metric.ts functionName; "local" under npm start). */
export const FUNCTION_DIMENSION = 'FunctionName';

/**
 * A results run that could not roll the closed state days up into a new base generation, or commit
 * it (Athena INSERT INTO tally.results_base and the S3 commit, or locally the base file and
 * commit.json): the results stay exact (the previous base and the state days after it are read), but
 * the state files read per run grow by a day's slices for each day it keeps failing. Dimension: FunctionName.
 */
export const RESULTS_BASE_WRITE_FAILED = 'ResultsBaseWriteFailed';

/**
 * An insight query that failed on its engine (Athena: FAILED or CANCELLED, with the reason in the
 * log line before the metric), once per query; the request answers 502. Dimension: FunctionName.
 */
export const INSIGHT_QUERY_FAILED = 'InsightQueryFailed';

/**
 * An admin write whose audit entry could not be written (docs/decisions/audit-log.md): before the write,
 * the request is refused (503, nothing changed); after it, the entry keeps status null. Either way
 * the log line "audit log ... failed" says which. Dimension: FunctionName.
 */
export const AUDIT_RECORD_FAILED = 'AuditRecordFailed';

/**
 * A compaction run that failed (docs/decisions/columnar-events.md): nothing is lost (the landing hours
 * stay in the views' tail and are never deleted before they are committed), but until a run succeeds
 * readers scan the growing landing tail. The next scheduled run retries. Dimension: FunctionName.
 */
export const COMPACTION_FAILED = 'CompactionFailed';

/**
 * Curated files a compaction run wrote beyond the goal of one per 128 MiB of each partition
 * (domain/curated-files-goal.ts), emitted with that count when above 0: on AWS, Athena's UNLOAD decides
 * how many files it writes and documents no bound. Nothing is lost or wrong; readers open more files
 * than they should. Dimension: FunctionName.
 */
export const CURATED_FILES_OVER_GOAL = 'CuratedFilesOverGoal';

/**
 * Curated event partitions (project, day) the retention cut removed in a run (docs/decisions/retention.md),
 * emitted when a run removed any. Dimension: FunctionName.
 */
export const RETENTION_REMOVED = 'RetentionRemoved';

/**
 * A retention cut that failed: events older than the retention stay readable until a run succeeds
 * (nothing younger is touched). The next scheduled run retries. Dimension: FunctionName.
 */
export const RETENTION_FAILED = 'RetentionFailed';

/**
 * A step of a person's deletion failed (services/erase-people.ts, in the compaction job's run): the
 * deletion stays at that step and the next run retries it; its data may outlive the 24-hour bound
 * unless someone looks. Dimension: FunctionName.
 */
export const DELETION_FAILED = 'DeletionFailed';

/**
 * A person's export failed in the compaction job's run (services/export-people.ts): the export stays
 * unfinished and the next run does it again. Dimension: FunctionName.
 */
export const EXPORT_FAILED = 'ExportFailed';
