/**
 * A person's export (docs/api.md "Exports", docs/privacy.md "Access requests"): what is requested, its
 * progress, and the file: NDJSON, one line per record with a `type`. The person is the same as a
 * deletion's (domain/person-ids.ts). Pure.
 */
import * as z from 'zod';
import { personUserId } from './deletion';

/** How long a download link works (the S3 presigned URL's expiry, the local signed link's). */
export const EXPORT_LINK_SECONDS = 15 * 60;
/** How long an export file is kept before the bucket's lifecycle rule (locally the compaction job) removes it. */
export const EXPORT_FILE_DAYS = 7;

export const CreateExport = z.strictObject({ user_id: personUserId('export') });

export interface ExportCounts {
  events: number;
  identity_links: number;
  profiles: number;
  assignments: number;
}

export interface PersonExport {
  id: string;
  project_id: string;
  user_id: string;
  state: 'pending' | 'running' | 'done';
  requested_at: string;
  requested_by: string;
  finished_at?: string;
  /** The person's IDs (every ID linked to user_id), found when it ran. */
  ids?: string[];
  counts?: ExportCounts;
}

/** What the API shows: the export, and when done its download link. */
export type ExportView = PersonExport & { download_url?: string; download_expires_at?: string };

export function newExport(fields: Pick<PersonExport, 'id' | 'project_id' | 'user_id' | 'requested_by'> & { nowMs: number }): PersonExport {
  const { nowMs, ...rest } = fields;
  return { ...rest, state: 'pending', requested_at: new Date(nowMs).toISOString() };
}

/** Whether an export holds data of any of these IDs (a deletion of them removes it). */
export function exportNamesAny(e: PersonExport, ids: ReadonlySet<string>): boolean {
  return ids.has(e.user_id) || (e.ids ?? []).some((id) => ids.has(id));
}

/** The records of one person, as read from each store. */
export interface PersonRecordsFound {
  events: Array<Record<string, unknown>>;
  identityLinks: Array<Record<string, unknown>>;
  profiles: Array<{ id: string; email?: string; name?: string }>;
  assignments: Array<{ user_id: string; experiment_id: string; variant: string }>;
}

/** The export file: one JSON object per line, each with its `type` first; empty when nothing was found. */
export function exportFile(found: PersonRecordsFound): { body: string; counts: ExportCounts } {
  const lines = [
    ...found.events.map((e) => ({ type: 'event', ...e, properties: parsedProperties(e.properties) })),
    ...found.identityLinks.map((l) => ({ type: 'identity_link', ...l })),
    ...found.profiles.map((p) => ({ type: 'profile', ...p })),
    ...found.assignments.map((a) => ({ type: 'assignment', ...a })),
  ].map((record) => JSON.stringify(record));
  return {
    body: lines.map((l) => `${l}\n`).join(''),
    counts: { events: found.events.length, identity_links: found.identityLinks.length, profiles: found.profiles.length, assignments: found.assignments.length },
  };
}

/** An event's properties as the object sent: the engines read the column as JSON text. */
function parsedProperties(properties: unknown): unknown {
  if (typeof properties !== 'string') return properties ?? null;
  try {
    return JSON.parse(properties) as unknown;
  } catch {
    return properties;
  }
}
