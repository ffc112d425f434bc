/**
 * The raw events' arrival partition (issue 21; docs/decisions/incremental-results.md): beside the
 * event's day (dt), each event is stored under the hour its arrival was recorded (received_at, set
 * by the ingest handler before the record is put to Firehose):
 *
 *   events/project_id=<id>/dt=<YYYY-MM-DD of timestamp>/received=<YYYY-MM-DD-HH of received_at>/<file>
 *
 * Firehose computes the key with jq (dynamic partitioning, lib/raw-streams.ts), the local stand-in
 * with arrivalHour (lambdas/local/firehose-endpoint.ts), and the job's Glue table tally.events_by_arrival
 * projects it (lib/analytics.ts), so the incremental results job reads only the hours that arrived
 * since its watermark. Analysts keep tally.events (project_id, dt): Athena reads every object under
 * a day's folder, its arrival subfolders included.
 * Shared by the Lambdas and the CDK app, hence in contract/.
 */

/** The partition column and the S3 key segment name. */
export const ARRIVAL_PARTITION = 'received';

/** The Glue table the results job reads raw events through (partitions project_id, dt, received). */
export const EVENTS_BY_ARRIVAL_TABLE = 'events_by_arrival';

/** The projection's date format (Java DateTimeFormatter), one partition per UTC hour. */
export const ARRIVAL_HOUR_FORMAT = 'yyyy-MM-dd-HH';

/** The arrival hour of an ISO 8601 UTC time ("2026-03-20T10:50:00.000Z" -> "2026-03-20-10"). */
export function arrivalHour(iso: string): string {
  return `${iso.slice(0, 10)}-${iso.slice(11, 13)}`;
}
