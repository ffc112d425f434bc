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
 * A row of the identity stream: from `timestamp` on, `id` belongs to the group whose canonical ID is
 * `canonical_id`. The latest row of an ID wins; IDs without rows are their own canonical ID.
 */
export interface IdentityRecord {
  project_id: string;
  id: string;
  canonical_id: string;
  timestamp: string;
  /** "link": one of the two IDs of a link request; "merge": moved with its group. */
  reason: 'link' | 'merge';
}
