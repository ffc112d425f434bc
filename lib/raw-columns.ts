/**
 * The columns of the Glue tables over the raw streams, one per field of the record each stream
 * carries: tally.events (StoredEvent, whose fields lambdas/domain/event.ts lists once, in
 * STORED_EVENT_FIELDS) and tally.identities (IdentityRecord, lambdas/domain/identity.ts). The type
 * check fails when a field is added to or removed from either record type without changing its list.
 *
 * All columns are strings read by the OpenX JSON SerDe from the NDJSON the streams write.
 * Timestamps stay strings (ISO 8601 with "T" and "Z", which Athena's TIMESTAMP type does not parse
 * from JSON text): compare them as text or with from_iso8601_timestamp(timestamp). properties is the
 * event's JSON object as text: json_extract_scalar(properties, '$.plan').
 */
import { STORED_EVENT_FIELDS, type StoredEvent } from '../lambdas/domain/event';
import type { IdentityRecord } from '../lambdas/domain/identity';

export type HiveType = 'string';

export const EVENT_COLUMNS = Object.fromEntries(STORED_EVENT_FIELDS.map((f) => [f, 'string'])) as Record<keyof StoredEvent, HiveType>;

export const IDENTITY_COLUMNS = {
  project_id: 'string',
  id: 'string',
  canonical_id: 'string',
  // A JSON number; the results SQL casts it (string keeps HiveType one type).
  version: 'string',
  timestamp: 'string',
  reason: 'string',
} as const satisfies Record<keyof IdentityRecord, HiveType>;

/**
 * Partition columns. project_id is both in each record and in the S3 key; Hive forbids a column that
 * is both a data and a partition column, so it is only a partition column (same values either way).
 * dt is the day of the record's timestamp (YYYY-MM-DD, UTC), which only the S3 key holds.
 */
export const PARTITION_COLUMNS = ['project_id', 'dt'] as const;

/** Data columns of a table, in record order, without the partition columns. */
export function dataColumns(columns: Record<string, HiveType>): string[] {
  return Object.keys(columns).filter((c) => !(PARTITION_COLUMNS as readonly string[]).includes(c));
}
