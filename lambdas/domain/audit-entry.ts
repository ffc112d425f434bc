/**
 * What the audit log records of an admin write (docs/decisions/audit-log.md): who (the admin token,
 * or a signed-in person's subject and email), what (the route, the IDs in its path, the names of the
 * validated body fields, never their values), when, from which network (the source address cut to its
 * /24 or /48 network: personal data kept at the least that still says "from where"), and the answer.
 */
import type { AdminRole } from './admin-role';

export interface AuditEntry {
  id: string;
  /** ISO 8601, UTC, milliseconds. */
  at: string;
  actor: { via: 'admin-token' } | { via: 'sign-in'; subject: string; email?: string };
  role: AdminRole;
  route: string;
  method: string;
  /** The path's IDs: project_id, id, key_id, insight_id... */
  target: Record<string, string>;
  /** The validated body's top-level field names, sorted. */
  fields: string[];
  /** The source address's network (a.b.c.0/24, or the first 48 bits of IPv6 as x:y:z::/48); null when unknown. */
  network: string | null;
  /** The HTTP status answered; null while the write is under way (recorded before it runs). */
  status: number | null;
}

/** How an actor is named in the listing and its `actor` filter: the email, else the subject, else "admin token". */
export function actorName(actor: AuditEntry['actor']): string {
  return actor.via === 'admin-token' ? 'admin token' : (actor.email ?? actor.subject);
}

/** The network a source address is in: IPv4 /24, IPv6 /48; null for anything else. */
export function sourceNetwork(ip: string | undefined): string | null {
  if (!ip) return null;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}$/.exec(ip.replace(/^::ffff:/i, ''));
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  if (!ip.includes(':')) return null;
  const [head = ''] = ip.split('::');
  const groups = head.split(':').filter(Boolean);
  const full = ip.includes('::') ? [...groups, '0', '0', '0'].slice(0, 3) : ip.split(':').slice(0, 3);
  if (full.length < 3 || !full.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return `${full.map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/48`;
}
