/**
 * Which raw-stream rows belong to a deleted person (docs/decisions/erasure.md), for the rewrite of the
 * landing objects (NDJSON lines): the same rule as the SQL one of the curated partitions
 * (adapters/sql/rules/person-event-rows.sql, person-identity-rows.sql). An event names one of the
 * person's IDs, as resolved or as sent; an identity link has one as its ID or canonical ID; and it was
 * received (written) through the deletion's request. Pure.
 */
import type { StreamName } from './landing-hour';

export interface PersonRowRule {
  projectId: string;
  ids: ReadonlySet<string>;
  /** ISO 8601: rows received after it belong to whoever sends them then. */
  through: string;
}

export function isPersonRow(stream: StreamName, row: Record<string, unknown>, rule: PersonRowRule): boolean {
  if (row.project_id !== rule.projectId) return false;
  const named = (field: string) => typeof row[field] === 'string' && rule.ids.has(row[field]);
  const at = stream === 'events' ? row.received_at : row.timestamp;
  if (typeof at !== 'string' || at > rule.through) return false;
  return stream === 'events' ? named('user_id') || named('sent_user_id') : named('id') || named('canonical_id');
}

/** Whether an NDJSON line is a row of the deleted person (a line that is not JSON is kept, as the readers skip it). */
export function isPersonLine(stream: StreamName, line: string, rule: PersonRowRule): boolean {
  if (line.trim() === '') return false;
  try {
    const row = JSON.parse(line) as unknown;
    return typeof row === 'object' && row !== null && !Array.isArray(row) && isPersonRow(stream, row as Record<string, unknown>, rule);
  } catch {
    return false;
  }
}
