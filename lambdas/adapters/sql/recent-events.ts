/**
 * The recent-events listing's query, one text for both engines (DuckDB locally, Athena on AWS), and
 * the conversion of its rows back into stored events. Values are rendered as quoted literals
 * (quoteLiteral, see render.ts for why not bind parameters).
 *
 * Timestamps are ISO 8601 UTC text of one fixed width (toIso), so comparing and ordering them as text
 * is comparing and ordering the instants. ORDER BY ... LIMIT is a top-N: the engine keeps `limit` rows
 * however many match, so a filter finds matching events however far back they are in the window.
 */
import { STORED_EVENT_FIELDS, type StoredEvent } from '../../domain/event';
import type { RecentFilter } from '../../ports';
import { quoteLiteral } from './render';

export interface RecentEventsQuery {
  /** The events table (a Glue table on AWS, a temp view locally). */
  table: string;
  projectId: string;
  filter: RecentFilter;
  /** Events received at or after this instant (ISO 8601 UTC): the window. */
  receivedFrom: string;
  /** Only partitions dt >= this day (YYYY-MM-DD): Athena reads the latest partitions only. */
  fromDt?: string;
}

export function renderRecentEvents(q: RecentEventsQuery): string {
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(q.table)) throw new Error(`Not a table name: ${q.table}`);
  if (!Number.isInteger(q.filter.limit) || q.filter.limit < 1) throw new Error('limit must be a positive integer');
  const where = [`project_id = ${quoteLiteral(q.projectId)}`, `received_at >= ${quoteLiteral(q.receivedFrom)}`];
  if (q.fromDt !== undefined) where.push(`dt >= ${quoteLiteral(q.fromDt)}`);
  if (q.filter.userId !== undefined) where.push(`(user_id = ${quoteLiteral(q.filter.userId)} OR sent_user_id = ${quoteLiteral(q.filter.userId)})`);
  if (q.filter.name !== undefined) where.push(`name = ${quoteLiteral(q.filter.name)}`);
  const columns = STORED_EVENT_FIELDS.map((c) => `"${c}"`).join(', ');
  return `SELECT ${columns} FROM ${q.table}
WHERE ${where.join('\n  AND ')}
ORDER BY "timestamp" DESC, received_at DESC, dedupe_key DESC
LIMIT ${q.filter.limit}`;
}

/** A result row (text or null values; properties as JSON text or already parsed) as a stored event. */
export function rowToStoredEvent(row: Record<string, unknown>): StoredEvent {
  const event: Record<string, unknown> = {};
  for (const field of STORED_EVENT_FIELDS) {
    const value = row[field];
    if (field === 'properties') event.properties = typeof value === 'string' ? (JSON.parse(value) as unknown) : (value ?? {});
    else event[field] = value === undefined ? null : value;
  }
  return event as unknown as StoredEvent;
}
