/**
 * Identity for a batch of received events: record first sight of every ID, apply the batch's
 * `$identify` links, upsert profiles, and return each sent ID's canonical ID, with which the events
 * are then built (domain/event.ts withCanonicalUser). Runs before the events are stored, so a retried
 * batch re-applies it idempotently.
 */
import type { CanonicalIds, ReceivedEvent } from '../domain/event';
import { identityEffects, type IdentityRecord } from '../domain/identity';
import { idsOfEvent, unsuppressedEvents } from '../domain/suppression';
import { toIso } from '../domain/timestamp';
import { errorFields, log } from '../logging/log';
import type { IdentityItem, IdentityJournal, IdentityStream, IdentityStore, PointerChange } from '../ports';

export interface IdentityDeps {
  identities: IdentityStore;
  identitySink: IdentityStream;
}

/**
 * The events of a batch naming no suppressed ID (domain/suppression.ts), and the items of their IDs:
 * one read of the identities table, the one resolveIdentities makes anyway (give it `seen`).
 */
export async function screenSuppressed<E extends ReceivedEvent>(
  projectId: string,
  events: E[],
  deps: Pick<IdentityDeps, 'identities'>,
): Promise<{ kept: E[]; dropped: number; seen?: ReadonlyMap<string, IdentityItem> }> {
  const ids = [...new Set(events.flatMap(idsOfEvent))];
  if (ids.length === 0) return { kept: events, dropped: 0 };
  const { suppressed, seen } = await deps.identities.screen(projectId, ids);
  const kept = unsuppressedEvents(events, suppressed);
  return { kept, dropped: events.length - kept.length, seen };
}

export async function resolveIdentities(
  projectId: string,
  events: ReceivedEvent[],
  deps: IdentityDeps,
  nowMs: number,
  seen?: ReadonlyMap<string, IdentityItem>,
): Promise<CanonicalIds> {
  const { ids, links, profiles, earliest } = identityEffects(events);
  if (ids.length === 0) return new Map();
  const journal = identityJournal(projectId, deps.identitySink, nowMs);
  // Linked pairs are created in order (the user ID after its anonymous ID), see the store.
  const pairs = links.map((l): [string, string] => [l.anonymousId, l.userId]);
  let canonical = await deps.identities.observe(projectId, ids, nowMs, { links: pairs, journal, eventTimes: earliest, ...(seen ? { seen } : {}) });
  // A link whose IDs already share a canonical ID (usually: the user ID was just created linked) changes
  // nothing (links are never undone), so IDs are read again only after a link that had work to do.
  let linked = false;
  for (const link of links) {
    if (canonical.get(link.anonymousId) === canonical.get(link.userId)) continue;
    await deps.identities.link(projectId, link.anonymousId, link.userId, nowMs, journal);
    linked = true;
  }
  if (linked) canonical = await deps.identities.observe(projectId, ids, nowMs, { journal });
  for (const p of profiles) await deps.identities.updateProfile(projectId, p.userId, p, p.atMs);
  return canonical;
}

/** Links two IDs; each merge is written to the identity stream before it takes effect. */
export async function linkIds(projectId: string, a: string, b: string, deps: IdentityDeps, nowMs: number): Promise<string> {
  return (await deps.identities.link(projectId, a, b, nowMs, identityJournal(projectId, deps.identitySink, nowMs))).canonical;
}

/**
 * Whether any of these IDs is suppressed (docs/privacy.md, "Suppression"), and their identity items,
 * read in the one BatchGet observe would make anyway: give `seen` to observeId.
 */
export async function screenIds(
  projectId: string,
  ids: string[],
  deps: Pick<IdentityDeps, 'identities'>,
): Promise<{ suppressed: boolean; seen: ReadonlyMap<string, IdentityItem> }> {
  const { suppressed, seen } = await deps.identities.screen(projectId, ids);
  return { suppressed: suppressed.size > 0, seen };
}

/** The canonical ID of one ID, recording its first sight; shortened pointers go to the stream. `seen`: its item as screenIds read it. */
export async function observeId(projectId: string, id: string, deps: IdentityDeps, nowMs: number, seen?: ReadonlyMap<string, IdentityItem>): Promise<string> {
  const journal = identityJournal(projectId, deps.identitySink, nowMs);
  return (await deps.identities.observe(projectId, [id], nowMs, { journal, ...(seen ? { seen } : {}) })).get(id)!;
}

/** The identity stream as the store's journal: one row per pointer change, with its committed version. */
export function identityJournal(projectId: string, stream: IdentityStream, nowMs: number): IdentityJournal {
  const write = async (changes: PointerChange[]) => {
    if (changes.length === 0) return;
    const records: IdentityRecord[] = changes.map((c) => ({ project_id: projectId, ...c, timestamp: toIso(nowMs) }));
    await stream.put(records);
  };
  return {
    beforeMerge: (change) => write([change]),
    // Shortcuts only: without their lines the stream's pointers chain through the old root and
    // still resolve, so a failed write does not fail a request whose merge already committed.
    moved: (changes) =>
      write(changes).catch((err: unknown) =>
        log('warn', 'identity shortcut lines not written', { project_id: projectId, lines: changes.length, ...errorFields(err) }),
      ),
  };
}
