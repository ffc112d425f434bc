/**
 * Suppression (docs/privacy.md "Suppression", docs/decisions/erasure.md#suppress): a person deleted
 * with `suppress: true` has every ID of their group suppressed in the project from the moment the
 * deletion is answered (202). An event whose sender's ID is suppressed, or an `$identify` whose
 * `$anonymous_id` is, is accepted (the client is not told to retry) and dropped: not stored, not
 * recorded as seen by deduplication, and no identity link or first sight is made of it. Other events
 * of the same batch are stored as usual. Suppression is permanent: nothing lifts it.
 *
 * What remains of a suppressed ID is a marker keyed by the SHA-256 of the project and the ID, never
 * the ID in clear: ingestion finds it by hashing the IDs it receives. Pure.
 */
import { hash } from 'node:crypto';
import { IDENTIFY_EVENT } from './identity';
import type { StoredEvent } from './event';

/** The digest a suppressed ID is kept as: SHA-256 (hex) of the project ID and the ID, NUL between (neither holds NUL where it matters: project IDs are generated, and events' IDs refuse it). */
export const suppressionDigest = (projectId: string, id: string): string => hash('sha256', `${projectId}\u0000${id}`, 'hex');

/** The IDs an event would bring into the project's identities: its sender's ID, and an `$identify`'s anonymous ID. */
export function idsOfEvent(e: Pick<StoredEvent, 'name' | 'sent_user_id' | 'properties'>): string[] {
  const ids = e.sent_user_id ? [e.sent_user_id] : [];
  const anonymousId = e.name === IDENTIFY_EVENT ? e.properties.$anonymous_id : undefined;
  if (typeof anonymousId === 'string' && anonymousId !== '') ids.push(anonymousId);
  return ids;
}

/** The events of a batch that are kept: those naming no suppressed ID (idsOfEvent). */
export function unsuppressedEvents<E extends Pick<StoredEvent, 'name' | 'sent_user_id' | 'properties'>>(events: E[], suppressed: ReadonlySet<string>): E[] {
  if (suppressed.size === 0) return events;
  return events.filter((e) => !idsOfEvent(e).some((id) => suppressed.has(id)));
}

/** The IDs a deletion suppresses: none without `suppress`; else the ID asked for and every ID of its group found so far. */
export const idsToSuppress = (d: { suppress: boolean; user_id: string }, group: readonly string[]): string[] =>
  d.suppress ? [...new Set([d.user_id, ...group])].sort() : [];
