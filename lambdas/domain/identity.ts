/**
 * Identity rules. IDs of a project form groups (linked by `$identify`, or by GET /v1/experiments with
 * both IDs). The canonical ID of a group is its earliest-seen ID; ties (IDs first seen in the same
 * request) go to the one that came first in it (an `$identify`'s $anonymous_id counts before its
 * user_id), then to the smaller ID.
 */
import type { StoredEvent } from './event';

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
  if (a.first_seen_ms !== b.first_seen_ms) return a.first_seen_ms < b.first_seen_ms;
  if (a.first_seen_order !== b.first_seen_order) return a.first_seen_order < b.first_seen_order;
  return a.id < b.id;
}

export const IDENTIFY_EVENT = '$identify';

export interface IdentityLink {
  anonymousId: string;
  userId: string;
}

export interface ProfileUpdate {
  userId: string;
  email?: string;
  name?: string;
  atMs: number;
}

/** The IDs of a batch in order of first appearance, and the links and profile updates it asks for. */
export function identityEffects(events: Array<Pick<StoredEvent, 'name' | 'sent_user_id' | 'properties' | 'timestamp'>>): {
  ids: string[];
  links: IdentityLink[];
  profiles: ProfileUpdate[];
} {
  const ids = new Set<string>();
  const links: IdentityLink[] = [];
  const profiles: ProfileUpdate[] = [];
  for (const e of events) {
    const userId = e.sent_user_id;
    if (e.name === IDENTIFY_EVENT && userId) {
      const anonymousId = e.properties.$anonymous_id;
      if (typeof anonymousId === 'string' && anonymousId !== '' && anonymousId !== userId) {
        ids.add(anonymousId);
        links.push({ anonymousId, userId });
      }
      const email = typeof e.properties.email === 'string' ? e.properties.email : undefined;
      const name = typeof e.properties.name === 'string' ? e.properties.name : undefined;
      if (email !== undefined || name !== undefined) profiles.push({ userId, email, name, atMs: Date.parse(e.timestamp) });
    }
    if (userId) ids.add(userId);
  }
  return { ids: [...ids], links, profiles };
}

/**
 * A row of the identity stream: `id` points at `canonical_id` (an earlier-seen ID of its group;
 * follow the pointers to the group's canonical ID). The row with the highest `version` of an ID
 * wins: the version its item's pointer had in the table when the change committed, so the latest
 * row follows commit order, not arrival order. IDs without rows are their own canonical ID.
 */
export interface IdentityRecord {
  project_id: string;
  id: string;
  canonical_id: string;
  /** The item's pointer version in the identities table (1 for its first change). */
  version: number;
  timestamp: string;
  /**
   * "link": one of a link's two IDs, a root, moved by the merge; "merge": any other ID the merge
   * moved (the other root, members); "compress": a pointer shortened to its group's canonical ID
   * when read (same group, shorter path).
   */
  reason: 'link' | 'merge' | 'compress';
}
