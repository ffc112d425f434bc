/**
 * A person's first seen: the earliest `timestamp` of any event sent under any of its linked IDs, not when
 * those events arrived, so a backfill (events with old timestamps sent later) moves it back and it is never
 * after the person's last seen (the newest event's `timestamp`). Each ID's item keeps the earliest event
 * time it was sent with (`first_event_ms`, lowered by a conditional update only when a batch carries an
 * older event: the identity store). An ID that never sent an event (only asked for its variant), or was
 * stored before the items kept it, has none; a group where no ID has one falls back to when its canonical
 * ID was first seen (`first_seen_ms`, the arrival of its first request).
 */
export interface FirstSeenFacts {
  first_seen_ms: number;
  first_event_ms?: number;
}

/** The first seen (ms) of a group of linked IDs, given its canonical ID's item and every member's. */
export function personFirstSeenMs(canonical: FirstSeenFacts, members: readonly FirstSeenFacts[]): number {
  let earliest: number | undefined;
  for (const m of members) {
    if (m.first_event_ms !== undefined && (earliest === undefined || m.first_event_ms < earliest)) earliest = m.first_event_ms;
  }
  return earliest ?? canonical.first_seen_ms;
}

/** Whether a batch's earliest event time for an ID must be written to its item: only when it is older than the one kept. */
export function lowersFirstEvent(kept: number | undefined, batchEarliest: number): boolean {
  return kept === undefined || batchEarliest < kept;
}
