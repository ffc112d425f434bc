/**
 * Every admin route of the manifest declares the least role it needs, and the role order decides who
 * passes. A route added without a role fails here (the lead gives routes of parallel branches theirs).
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_ROLES, roleAllows, roleNeededError, type AdminRole } from '../../lambdas/domain/admin-role';
import { ROUTES, type Route } from '../../lambdas/routes';

const adminRoutes = (ROUTES as readonly Route[]).filter((r) => r.auth === 'admin');

/** A person's deletions and exports: asked for, listed and read by admins only (they name the people, and an export holds a person's data). */
const PERSON_REQUESTS = /^\/admin\/v1\/projects\/\{project_id\}\/(deletions(\/\{deletion_id\})?|exports(\/\{export_id\})?)$/;

/** Routes a role may call and no role before it may: what each role adds, as the issue lists it. */
const ADDED_BY: Record<AdminRole, (r: Route) => boolean> = {
  viewer: (r) => r.method === 'GET' && r.path !== '/admin/v1/audit' && !PERSON_REQUESTS.test(r.path),
  analyst: (r) => r.method !== 'GET' && /\/(insights|saved-insights|dashboards)\b/.test(r.path),
  experimenter: (r) => r.method !== 'GET' && /\/(experiments|plan)\b/.test(r.path),
  // The audit log names people and their networks, the deletions the people deleted, the exports a person's data: admins only.
  admin: (r) =>
    (r.method !== 'GET' && /^\/admin\/v1\/projects(\/\{project_id\}(\/keys(\/\{key_id\})?)?)?$/.test(r.path)) ||
    r.path === '/admin/v1/audit' ||
    PERSON_REQUESTS.test(r.path),
};

describe('admin route roles', () => {
  it('the manifest has admin routes to check', () => {
    expect(adminRoutes.length).toBeGreaterThan(20);
  });

  it.each(adminRoutes.map((r) => [r.name, r] as const))('%s declares a role, and exactly the roles from it on pass', (_name, route) => {
    expect(
      route.role,
      `${route.name} declares no role: add role: 'viewer' | 'analyst' | 'experimenter' | 'admin' to its line in lambdas/routes.ts`,
    ).toBeDefined();
    expect(ADMIN_ROLES).toContain(route.role);
    const needed = route.role as AdminRole;
    const passing = ADMIN_ROLES.filter((held) => roleAllows(held, needed));
    expect(passing).toEqual(ADMIN_ROLES.slice(ADMIN_ROLES.indexOf(needed)));
    // The role declared is the one whose additions cover the route.
    expect(ADDED_BY[needed](route), `${route.name} (${route.method} ${route.path}) declares ${needed}`).toBe(true);
  });

  it('a viewer reads everything but the audit log, the deletions and the exports and writes nothing; the admin token (admin) passes every route', () => {
    for (const route of adminRoutes) {
      expect(roleAllows('viewer', route.role as AdminRole), route.name).toBe(
        route.method === 'GET' && route.name !== 'admin-audit-list' && !PERSON_REQUESTS.test(route.path),
      );
      expect(roleAllows('admin', route.role as AdminRole), route.name).toBe(true);
    }
  });

  it('api-key routes declare no admin role', () => {
    for (const route of (ROUTES as readonly Route[]).filter((r) => r.auth === 'api-key')) expect(route.role, route.name).toBeUndefined();
  });

  it('the refusal names the role needed and the role held', () => {
    const message = roleNeededError('viewer', 'experimenter');
    expect(message).toContain('needs the experimenter role');
    expect(message).toContain('signed in as viewer');
  });
});
