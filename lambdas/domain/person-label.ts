/**
 * How a person is named wherever the dashboard shows one (People, a person's page, Events): the
 * email an `$identify` sent, else the name, else the most recent ID the person's events were sent
 * with, else the canonical ID. The canonical ID (often the first anonymous ID seen) names the identity
 * group in storage; it is shown beside the label, not as it. Pure.
 */
export interface PersonFields {
  user_id: string;
  email: string | null;
  name: string | null;
  /** IDs as sent, the most recent first when known. */
  recent_ids?: readonly string[];
}

export function personLabel(p: PersonFields): string {
  return p.email ?? p.name ?? p.recent_ids?.[0] ?? p.user_id;
}
