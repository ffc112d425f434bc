/**
 * Which Tally role a signed-in person holds, from the groups claim of their token: the groups are
 * mapped to roles by a configurable table, and the highest mapped role wins. Without a table, a group
 * named like a role (viewer, analyst, experimenter, admin) is that role.
 */
import { ADMIN_ROLES, highestRole, isAdminRole, type AdminRole } from './admin-role';

/** Cognito puts a user's groups in `cognito:groups`; other issuers are configured (OIDC_GROUPS_CLAIM). */
export const DEFAULT_GROUPS_CLAIM = 'cognito:groups';

export type GroupRoles = ReadonlyMap<string, AdminRole>;

export const DEFAULT_GROUP_ROLES: GroupRoles = new Map(ADMIN_ROLES.map((r) => [r, r]));

/**
 * Reads a mapping written `group=role,group=role` (group names may hold any character but `=` and `,`).
 * Returns what is wrong with the text instead when a pair is malformed or names no role.
 */
export function parseGroupRoles(text: string): GroupRoles | { problem: string } {
  const map = new Map<string, AdminRole>();
  for (const pair of text.split(',')) {
    const [group, role, extra] = pair.split('=').map((s) => s.trim());
    if (!group || extra !== undefined || !isAdminRole(role)) {
      return { problem: `must be group=role pairs separated by commas, each role one of ${ADMIN_ROLES.join(', ')}` };
    }
    map.set(group, role);
  }
  return map;
}

/** The groups a token's claim lists: an array of names, or one name (some issuers send a string). */
function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string');
  return [];
}

/** The role a token's claims give, or undefined when none of its groups is mapped. */
export function roleFromClaims(claims: Record<string, unknown>, groupsClaim: string, mapping: GroupRoles): AdminRole | undefined {
  return highestRole(groupsOf(claims[groupsClaim]).flatMap((g) => mapping.get(g) ?? []));
}

/** The mapping as OIDC_GROUP_ROLES writes it (parseGroupRoles reads it back). */
export function formatGroupRoles(mapping: GroupRoles): string {
  return [...mapping].map(([group, role]) => `${group}=${role}`).join(',');
}
