/** People's exports (docs/decisions/erasure.md "Export"): each request, its file and its download link. */
import type { ExportCounts, PersonExport, PersonRecordsFound } from '../domain/person-export';

export type { ExportCounts, PersonExport };

export interface ExportPage {
  exports: PersonExport[];
  /** Where the next page starts; absent on the last one. */
  next?: string;
}

export interface ExportStore {
  /** Stores a new export (its ID is new). */
  create(request: PersonExport): Promise<void>;
  get(projectId: string, id: string): Promise<PersonExport | undefined>;
  /** A project's exports, newest first (throws InvalidDeletionCursor for a cursor it did not give). */
  list(projectId: string, limit: number, cursor?: string): Promise<ExportPage>;
  /** Every export not done yet, of every project, oldest first. */
  unfinished(): Promise<PersonExport[]>;
  /** Replaces an export whole. */
  save(request: PersonExport): Promise<void>;
  /** Every export of a project (a deletion looks for the person's). */
  all(projectId: string): Promise<PersonExport[]>;
  /** Deletes an export's request (a deletion of the person). */
  forget(request: PersonExport): Promise<void>;
}

/** A short-lived link to an export's file. */
export interface DownloadLink {
  url: string;
  expires_at: string;
}

/** The export files: a prefix of the raw bucket on AWS (adapters/s3-export-files.ts), a directory of the data directory locally. */
export interface ExportFiles {
  /** Writes (or writes again) an export's file. */
  put(projectId: string, exportId: string, body: string): Promise<void>;
  /** Deletes these exports' files; how many there were. Idempotent. */
  remove(projectId: string, exportIds: readonly string[]): Promise<number>;
  /** A link that downloads the file until `expires_at` (signed now, for EXPORT_LINK_SECONDS). */
  link(projectId: string, exportId: string, nowMs: number): Promise<DownloadLink>;
}

/** A person's rows in the raw streams: every event once and every identity link naming one of the IDs. */
export interface PersonStreamRows {
  rowsOf(projectId: string, person: { ids: readonly string[]; through: string }): Promise<Pick<PersonRecordsFound, 'events' | 'identityLinks'>>;
}
