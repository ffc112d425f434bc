/**
 * claimed:   this request owns the event and must store it.
 * duplicate: an identical event is already stored.
 * in_flight: another request is storing an identical event right now; retry shortly.
 */
export type ClaimOutcome = 'claimed' | 'duplicate' | 'in_flight';

/**
 * The event ledger: which events are stored, enforced with conditional writes. It holds keys only, no
 * event content: the recent-events listing reads the raw event stream (RecentEvents).
 */
export interface EventLedger {
  /** Claims one event for a request (owner); the claim leases it until the request commits or releases. */
  claim(projectId: string, dedupeKey: string, owner: string, nowMs: number): Promise<ClaimOutcome>;
  /** Gives up claims whose events were not stored, so a retry can store them. */
  release(projectId: string, dedupeKeys: string[], owner: string): Promise<void>;
  /**
   * The request's commit: every event the owner claimed is stored (the raw stream accepted them). One
   * write per request, whatever its number of events.
   */
  markStored(owner: string, nowMs: number): Promise<void>;
}
