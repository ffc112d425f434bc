/**
 * Identity for a batch of events: record first sight of every ID, apply the batch's `$identify`
 * links, store each event under its canonical ID (the ID as sent stays in sent_user_id), and upsert
 * profiles. Runs before the events are stored, so a retried batch re-applies it idempotently.
 */
import type { StoredEvent } from '../domain/event';
import { identityEffects, type IdentityRecord } from '../domain/identity';
import { toIso } from '../domain/timestamp';
import type { IdentitySink, IdentityStore } from '../store/ports';

export interface IdentityDeps {
  identities: IdentityStore;
  identitySink: IdentitySink;
}

export async function resolveIdentities(projectId: string, events: StoredEvent[], deps: IdentityDeps, nowMs: number): Promise<void> {
  const { ids, links, profiles } = identityEffects(events);
  if (ids.length === 0) return;
  let canonical = await deps.identities.observe(projectId, ids, nowMs);
  for (const link of links) await linkIds(projectId, link.anonymousId, link.userId, deps, nowMs);
  if (links.length > 0) canonical = await deps.identities.observe(projectId, ids, nowMs);
  for (const e of events) if (e.sent_user_id) e.user_id = canonical.get(e.sent_user_id) ?? e.sent_user_id;
  for (const p of profiles) await deps.identities.updateProfile(projectId, p.userId, p, p.atMs);
}

/** Links two IDs; each merge is written to the identity stream before it takes effect. */
export async function linkIds(projectId: string, a: string, b: string, deps: IdentityDeps, nowMs: number): Promise<string> {
  const result = await deps.identities.link(projectId, a, b, nowMs, async (canonicalId, moved) => {
    const records: IdentityRecord[] = moved.map((id) => ({
      project_id: projectId,
      id,
      canonical_id: canonicalId,
      timestamp: toIso(nowMs),
      reason: id === a || id === b ? 'link' : 'merge',
    }));
    await deps.identitySink.put(records);
  });
  return result.canonical;
}
