/**
 * The raw streams' columns as DuckDB reads them (the Glue tables' columns, lib/raw-columns.ts): all
 * text, properties JSON. project_id is a partition column of the curated tables, so it is not listed.
 */
import { STORED_EVENT_FIELDS, type StoredEvent } from '../domain/event';
import type { IdentityRecord } from '../domain/identity';

export type DuckType = 'VARCHAR' | 'JSON';

/** The data columns of the Glue tables (lib/raw-columns.ts): project_id is a partition column only. */
export const EVENT_COLUMNS = Object.fromEntries(
  STORED_EVENT_FIELDS.filter((f) => f !== 'project_id').map((f) => [f, f === 'properties' ? 'JSON' : 'VARCHAR']),
) as Record<Exclude<keyof StoredEvent, 'project_id'>, DuckType>;

export const IDENTITY_COLUMNS = {
  id: 'VARCHAR',
  canonical_id: 'VARCHAR',
  version: 'VARCHAR',
  timestamp: 'VARCHAR',
  reason: 'VARCHAR',
} as const satisfies Record<Exclude<keyof IdentityRecord, 'project_id'>, DuckType>;
