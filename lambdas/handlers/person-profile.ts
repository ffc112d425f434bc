/**
 * A person's profile as its identity group says: the latest email and name any of its IDs sent with
 * `$identify`, and its first seen: the earliest event time of any of its IDs (domain/first-seen.ts). Read by the People listing, a person's page and the
 * events listing's labels, so a person is named the same everywhere.
 */
import { compareFirstSeen } from '../domain/canonical-order';
import { personFirstSeenMs } from '../domain/first-seen';
import { personLabel } from '../domain/person-label';
import type { IdentityItem, UserGroup } from '../ports';

/** Profile fields live on the item of the ID that sent them; across a group the latest value wins. */
function latest(members: IdentityItem[], field: 'email' | 'name'): string | null {
  let best: { value: string; at: number } | undefined;
  for (const m of members) {
    const value = m[field];
    const at = m[`${field}_at`];
    if (value !== undefined && at !== undefined && (!best || at > best.at)) best = { value, at };
  }
  return best?.value ?? null;
}

/** A user's email, name and first seen as its identity group says; null where unknown (no group, or no $identify gave it). */
export function profileOf(group: UserGroup | undefined): { email: string | null; name: string | null; first_seen: string | null } {
  if (!group) return { email: null, name: null, first_seen: null };
  return {
    email: latest(group.members, 'email'),
    name: latest(group.members, 'name'),
    first_seen: new Date(personFirstSeenMs(group.canonical, group.members)).toISOString(),
  };
}

/** The label the dashboard shows for the group's person (domain/person-label.ts), with the profile it comes from. */
export function personOf(group: UserGroup): { label: string; email: string | null; name: string | null } {
  const { email, name } = profileOf(group);
  // The IDs newest first: the one most recently linked stands for the person when no email or name is known.
  const recent = [...group.members]
    .sort(compareFirstSeen)
    .map((m) => m.id)
    .reverse();
  return { label: personLabel({ user_id: group.canonical.id, email, name, recent_ids: recent }), email, name };
}
