/**
 * The canonical first-seen order (spec: canonical user ID). The canonical ID of a group of linked IDs
 * is its earliest-seen ID; ties (IDs first seen in the same request) go to the one that came first in
 * it (an `$identify`'s $anonymous_id counts before its user_id), then to the smaller ID.
 *
 * Every use of the order goes through this module: the identity store stamps new IDs
 * (firstSightStamp, requestPosition, creationOrder) and picks the winner of a merge (seenBefore), the
 * user lookup lists a group's IDs (compareFirstSeen).
 */
export interface SeenId {
  id: string;
  first_seen_ms: number;
  /** Position of first appearance within the request that first saw it. */
  first_seen_order: number;
}

/**
 * The first-sight stamp of a new ID. Arrival time alone is not enough: a request that arrived
 * earlier can commit later, so a user ID could be stamped before the anonymous ID it is linked to
 * even though the anonymous ID was already stored. An ID created after its link partner was
 * committed (created or read back) is therefore stamped after that partner, whatever the clocks
 * say: first-seen order follows commit order where it matters, for the two IDs of a link. That
 * keeps an anonymous ID seen first canonical after login, so its assignments stay (spec).
 */
export function firstSightStamp(seenMs: number, position: number, committedPartners: SeenId[]): Omit<SeenId, 'id'> {
  let stamp = { first_seen_ms: seenMs, first_seen_order: position };
  for (const p of committedPartners) {
    const notBefore = p.first_seen_ms > stamp.first_seen_ms || (p.first_seen_ms === stamp.first_seen_ms && p.first_seen_order >= stamp.first_seen_order);
    if (notBefore) stamp = { first_seen_ms: p.first_seen_ms, first_seen_order: p.first_seen_order + 1 };
  }
  return stamp;
}

/** True when a should be the canonical ID of a merged group rather than b. */
export function seenBefore(a: SeenId, b: SeenId): boolean {
  return compareFirstSeen(a, b) < 0;
}

/** Sorts IDs in canonical first-seen order: the group's canonical ID first. */
export function compareFirstSeen(a: SeenId, b: SeenId): number {
  if (a.first_seen_ms !== b.first_seen_ms) return a.first_seen_ms < b.first_seen_ms ? -1 : 1;
  if (a.first_seen_order !== b.first_seen_order) return a.first_seen_order < b.first_seen_order ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The position of an ID in the request that first saw it: its first appearance among the request's IDs. */
export function requestPosition(requestIds: readonly string[], id: string): number {
  return requestIds.indexOf(id);
}

/** The two IDs of a link in the order they are created: the one appearing first in the request first. */
export function creationOrder(requestIds: readonly string[], x: string, y: string): [first: string, second: string] {
  return requestPosition(requestIds, x) <= requestPosition(requestIds, y) ? [x, y] : [y, x];
}
