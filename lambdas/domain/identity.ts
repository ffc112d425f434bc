/**
 * Identity rules. IDs of a project form groups (linked by `$identify`, or by GET /v1/experiments with
 * both IDs). Which ID of a group is canonical is the canonical first-seen order (canonical-order.ts).
 */
import type { StoredEvent } from './event';

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

/**
 * The IDs of a batch in order of first appearance, and the links and profile updates it asks for;
 * `earliest` gives each ID the earliest `timestamp` (ms) of the batch's events that carry it (as the
 * sender's ID, or as an `$identify`'s `$anonymous_id`): what a person's first seen is kept from.
 */
export function identityEffects(events: Array<Pick<StoredEvent, 'name' | 'sent_user_id' | 'properties' | 'timestamp'>>): {
  ids: string[];
  links: IdentityLink[];
  profiles: ProfileUpdate[];
  earliest: Map<string, number>;
} {
  const ids = new Set<string>();
  const links: IdentityLink[] = [];
  const profiles: ProfileUpdate[] = [];
  const earliest = new Map<string, number>();
  const seenAt = (id: string, ms: number) => {
    const known = earliest.get(id);
    if (known === undefined || ms < known) earliest.set(id, ms);
  };
  for (const e of events) {
    const userId = e.sent_user_id;
    const ms = Date.parse(e.timestamp);
    if (userId) seenAt(userId, ms);
    if (e.name === IDENTIFY_EVENT && userId) {
      const anonymousId = e.properties.$anonymous_id;
      if (typeof anonymousId === 'string' && anonymousId !== '' && anonymousId !== userId) {
        ids.add(anonymousId);
        links.push({ anonymousId, userId });
        seenAt(anonymousId, ms);
      }
      const email = typeof e.properties.email === 'string' ? e.properties.email : undefined;
      const name = typeof e.properties.name === 'string' ? e.properties.name : undefined;
      if (email !== undefined || name !== undefined) profiles.push({ userId, email, name, atMs: Date.parse(e.timestamp) });
    }
    if (userId) ids.add(userId);
  }
  return { ids: [...ids], links, profiles, earliest };
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
