/**
 * The signed-in person's role, for the pages: controls that need a higher role are not shown (the
 * API refuses them anyway, with a 403 naming the role). The admin token counts as admin.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { roleAllows, type AdminRole } from '../../lambdas/domain/admin-role';

export const RoleContext = createContext<AdminRole | undefined>('admin');

/** May the signed-in person do what needs `needed` (see lambdas/routes.ts for each route's role)? */
export function useCan(needed: AdminRole): boolean {
  const held = useContext(RoleContext);
  return held !== undefined && roleAllows(held, needed);
}
