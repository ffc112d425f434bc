/**
 * The recent-events listing's query, one text for both engines (DuckDB locally, Athena on AWS), and
 * the conversion of its rows back into stored events. Values are rendered as quoted literals
 * (quoteLiteral, see render.ts for why not bind parameters).
 *
 * Timestamps are ISO 8601 UTC text of one fixed width (toIso), so comparing and ordering them as text
 * is comparing and ordering the instants. ORDER BY ... LIMIT is a top-N: the engine keeps `limit` rows
 * however many match, so a filter finds matching events however far back they are in the window.
 *
 * Each event is listed once, however many copies of it the raw stream holds (rules/copy-rank.sql:
 * the copy received first among those that match the filters). The copies of one event share its
 * timestamp and deduplication key, so in the order "timestamp" DESC, dedupe_key DESC they are next to
 * each other, the first copy first. The query takes the newest `candidates` rows in that order (a
 * top-N, as cheap as the listing without copies), numbers the copies among them and keeps the first
 * of each: exactly the newest `limit` events whenever the candidates hold that many distinct events.
 * Only when they do not (more than half of them copies) does listRecentEvents run the query again
 * without the candidate bound, numbering the copies of every matching row.
 */
import { STORED_EVENT_FIELDS, type StoredEvent } from '../../domain/event';
import type { EventNameCount, PropertyNameCount, RecentFilter } from '../../ports';
import { SQL_RULES } from './include';
import { quoteLiteral, renderSql } from './render';

export interface RecentEventsQuery {
  /** The events table (a Glue table on AWS, a temp view locally). */
  table: string;
  projectId: string;
  filter: RecentFilter;
  /** Events received at or after this instant (ISO 8601 UTC): the window. */
  receivedFrom: string;
  /** Only partitions dt >= this day (YYYY-MM-DD): Athena reads the latest partitions only. */
  fromDt?: string;
  /** How many of the newest matching rows the copies are looked for in; unset, all of them. */
  candidates?: number;
}

/** The copy-rank rule, comments dropped: `row_number() OVER (...) AS copy_rank`. */
const COPY_RANK = renderSql(SQL_RULES['rules/copy-rank.sql']!, {}, {}).trim();
/** The rule's order of the copies of one event (first copy first), so the candidates keep it too. */
const COPY_ORDER = /ORDER BY ([^\n]+)\n/.exec(COPY_RANK)?.[1]?.trim();
if (!COPY_ORDER) throw new Error('rules/copy-rank.sql has no ORDER BY line');

/** The listing's order, newest first; after the copies are dropped the key makes it total. */
const LISTING_ORDER = '"timestamp" DESC, dedupe_key DESC';

/** Candidate rows per listed event: a listing runs once unless more than half of its newest candidates are copies. */
export const CANDIDATES_PER_EVENT = 2;

export function renderRecentEvents(q: RecentEventsQuery): string {
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(q.table)) throw new Error(`Not a table name: ${q.table}`);
  if (!Number.isInteger(q.filter.limit) || q.filter.limit < 1) throw new Error('limit must be a positive integer');
  if (q.candidates !== undefined && (!Number.isInteger(q.candidates) || q.candidates < q.filter.limit))
    throw new Error('candidates must be an integer >= limit');
  const where = [`project_id = ${quoteLiteral(q.projectId)}`, `received_at >= ${quoteLiteral(q.receivedFrom)}`];
  if (q.fromDt !== undefined) where.push(`dt >= ${quoteLiteral(q.fromDt)}`);
  if (q.filter.userIds !== undefined) {
    if (q.filter.userIds.length === 0) throw new Error('userIds must name at least one ID');
    const ids = q.filter.userIds.map(quoteLiteral).join(', ');
    where.push(`(user_id IN (${ids}) OR sent_user_id IN (${ids}))`);
  }
  if (q.filter.name !== undefined) where.push(`name = ${quoteLiteral(q.filter.name)}`);
  const columns = STORED_EVENT_FIELDS.map((c) => `"${c}"`).join(', ');
  const newest = q.candidates === undefined ? '' : `\n    ORDER BY ${LISTING_ORDER}, ${COPY_ORDER}\n    LIMIT ${q.candidates}`;
  return `SELECT ${columns}, candidates FROM (
  SELECT ${columns}, ${COPY_RANK.replace(/\n\s*/g, ' ')}, count(*) OVER () AS candidates
  FROM (
    SELECT ${columns}, dt FROM ${q.table}
    WHERE ${where.join('\n      AND ')}${newest}
  ) matching
) copies
WHERE copy_rank = 1
ORDER BY ${LISTING_ORDER}
LIMIT ${q.filter.limit}`;
}

/**
 * Runs the listing on an engine: first over the newest candidates, then, only if those held fewer
 * than `limit` distinct events while more rows matched, over every matching row.
 */
export async function listRecentEvents(
  run: (sql: string) => Promise<Array<Record<string, unknown>>>,
  q: Omit<RecentEventsQuery, 'candidates'>,
): Promise<StoredEvent[]> {
  const candidates = q.filter.limit * CANDIDATES_PER_EVENT;
  let rows = await run(renderRecentEvents({ ...q, candidates }));
  if (rows.length < q.filter.limit && Number(rows[0]?.candidates ?? 0) >= candidates) rows = await run(renderRecentEvents(q));
  return rows.map(rowToStoredEvent);
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

/**
 * The event names of the listing's window (GET …/event-names): each name's events, counted once per
 * event (the copy rule, as the listing), and its newest timestamp; the most events first, then by
 * name; at most `limit` names. The same scan as the listing: the window's partitions of the project.
 */
export function renderEventNames(q: Omit<RecentEventsQuery, 'filter' | 'candidates'> & { limit: number }): string {
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(q.table)) throw new Error(`Not a table name: ${q.table}`);
  if (!Number.isInteger(q.limit) || q.limit < 1) throw new Error('limit must be a positive integer');
  const where = [`project_id = ${quoteLiteral(q.projectId)}`, `received_at >= ${quoteLiteral(q.receivedFrom)}`];
  if (q.fromDt !== undefined) where.push(`dt >= ${quoteLiteral(q.fromDt)}`);
  return `SELECT name, count(*) AS events, max("timestamp") AS last_seen FROM (
  SELECT name, "timestamp", ${COPY_RANK.replace(/\n\s*/g, ' ')}
  FROM ${q.table}
  WHERE ${where.join('\n    AND ')}
) copies
WHERE copy_rank = 1
GROUP BY name
ORDER BY events DESC, name
LIMIT ${q.limit}`;
}

/** A result row of renderEventNames (counts as bigint, number or text by engine). */
export function rowToEventNameCount(row: Record<string, unknown>): EventNameCount {
  return { name: String(row.name), events: Number(row.events), last_seen: String(row.last_seen) };
}

/**
 * The property names of a window (GET …/property-names): each top-level key of the events' properties
 * (a JSON object as text: json_parse, then its keys as a map's; DuckDB has json_parse as a macro,
 * TRINO_COMPAT_MACROS), on how many events, each counted once (the copy rule, as the listing); the
 * most events first, then by name; at most `limit` names.
 */
export function renderPropertyNames(q: Omit<RecentEventsQuery, 'filter' | 'candidates'> & { limit: number }): string {
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(q.table)) throw new Error(`Not a table name: ${q.table}`);
  if (!Number.isInteger(q.limit) || q.limit < 1) throw new Error('limit must be a positive integer');
  const where = [`project_id = ${quoteLiteral(q.projectId)}`, `received_at >= ${quoteLiteral(q.receivedFrom)}`];
  if (q.fromDt !== undefined) where.push(`dt >= ${quoteLiteral(q.fromDt)}`);
  return `SELECT property_keys.name AS name, count(*) AS events FROM (
  SELECT properties, ${COPY_RANK.replace(/\n\s*/g, ' ')}
  FROM ${q.table}
  WHERE ${where.join('\n    AND ')}
) copies
CROSS JOIN UNNEST(map_keys(CAST(json_parse(properties) AS map(varchar, json)))) AS property_keys(name)
WHERE copy_rank = 1
GROUP BY property_keys.name
ORDER BY events DESC, name
LIMIT ${q.limit}`;
}

/** A property-names row (counts as text on Athena, big integers on DuckDB). */
export function rowToPropertyNameCount(row: Record<string, unknown>): PropertyNameCount {
  return { name: String(row.name), events: Number(row.events) };
}
