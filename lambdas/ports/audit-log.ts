/** The audit log of admin writes (lambdas/store/audit-log.ts): appended and read, never changed through the API. */
import type { AuditEntry } from '../domain/audit-entry';

export type { AuditEntry };

export interface AuditFilter {
  /** An actor's email or subject, or "admin token". */
  actor?: string;
  route?: string;
  projectId?: string;
  /** ISO timestamps, inclusive. */
  from?: string;
  to?: string;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Opaque; absent on the last page. */
  next?: string;
}

export interface AuditLog {
  /** Records an entry before its write runs; a failure throws, and the write does not run. */
  begin(entry: AuditEntry): Promise<void>;
  /** Records the status the write answered and the body fields it validated. */
  finish(entry: Pick<AuditEntry, 'id' | 'at'>, status: number, fields: string[]): Promise<void>;
  /** Newest first. A cursor that is not one the listing gave throws InvalidAuditCursor. */
  list(filter: AuditFilter, limit: number, cursor?: string): Promise<AuditPage>;
}

export class InvalidAuditCursor extends Error {
  override name = 'InvalidAuditCursor';
}
