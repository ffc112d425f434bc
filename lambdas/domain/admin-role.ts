/**
 * Admin roles, ordered: each role may do everything the roles before it may. A route of the admin
 * API declares the least role it needs (lambdas/routes.ts); a caller holding that role or a later one
 * passes. The admin token counts as `admin`.
 */
export const ADMIN_ROLES = ['viewer', 'analyst', 'experimenter', 'admin'] as const;

export type AdminRole = (typeof ADMIN_ROLES)[number];

/** What each role adds to the one before it, for messages and docs. */
export const ROLE_ADDS: Record<AdminRole, string> = {
  viewer: 'read everything',
  analyst: 'also run insights and save insights',
  experimenter: 'also create, edit, start and stop experiments',
  admin: 'also manage projects, API keys, settings and deletions',
};

export function isAdminRole(value: unknown): value is AdminRole {
  return typeof value === 'string' && (ADMIN_ROLES as readonly string[]).includes(value);
}

/** Does a caller holding `held` pass a route that needs `needed`? */
export function roleAllows(held: AdminRole, needed: AdminRole): boolean {
  return ADMIN_ROLES.indexOf(held) >= ADMIN_ROLES.indexOf(needed);
}

/** The highest of the roles a caller holds (none: undefined). */
export function highestRole(roles: Iterable<AdminRole>): AdminRole | undefined {
  let best: AdminRole | undefined;
  for (const r of roles) if (best === undefined || roleAllows(r, best)) best = r;
  return best;
}

/** The 403 answer to a caller whose role is not enough: the role held and the one the route needs. */
export function roleNeededError(held: AdminRole, needed: AdminRole): string {
  return `This request needs the ${needed} role (${ROLE_ADDS[needed]}); you are signed in as ${held}. Ask a Tally admin to add you to a group mapped to ${needed} or higher`;
}
