import type { StoredEvent } from '../domain/event';

/**
 * claimed:   this request owns the event and must store it.
 * duplicate: an identical event is already stored.
 * in_flight: another request is storing an identical event right now; retry shortly.
 */
export type ClaimOutcome = 'claimed' | 'duplicate' | 'in_flight';

/** The event ledger: which events are stored, enforced with conditional writes. */
export interface EventLedger {
  claim(projectId: string, dedupeKey: string, owner: string, nowMs: number): Promise<ClaimOutcome>;
  /** Gives up claims whose events were not stored, so a retry can store them. */
  release(projectId: string, dedupeKeys: string[], owner: string): Promise<void>;
  /** Records claimed events as stored, with their content for the recent-events listing. */
  markStored(events: StoredEvent[], nowMs: number): Promise<void>;
  recent(projectId: string, filter: RecentFilter): Promise<StoredEvent[]>;
}

export interface RecentFilter {
  userId?: string;
  name?: string;
  limit: number;
}
