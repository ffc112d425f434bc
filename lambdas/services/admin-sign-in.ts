/**
 * Who calls the admin API, and whether the route lets them: the admin token (automation,
 * break-glass; counts as admin) or a signed-in person's OIDC token with the role their groups map to.
 * The admin functions' wrapper and the local server both call this function, before any body is read.
 */
import { roleAllows, roleNeededError, type AdminRole } from '../domain/admin-role';
import { secretsEqual } from '../domain/api-key';
import type { SignInVerifier } from '../ports';

export const INVALID_ADMIN_TOKEN = 'Invalid or missing admin token';
export const NO_ROLE_ERROR =
  'You are signed in, but none of your groups is mapped to a Tally role (viewer, analyst, experimenter, admin): ask a Tally admin to add you to one';

/** A caller the admin API let in: what the audit log records of them. */
export type AdminCaller = { via: 'admin-token'; role: 'admin' } | { via: 'sign-in'; subject: string; email?: string; role: AdminRole };

export type AdminDecision = { allow: true; caller: AdminCaller } | { allow: false; status: 401 | 403; error: string };

export interface AdminSignIn {
  adminToken: () => Promise<string>;
  /** Unset: only the admin token signs in. */
  signIn?: SignInVerifier;
}

/** A JWT: three base64url parts; the admin token (printable ASCII) is compared first, so one shaped like this still works. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

export async function authenticateAdmin(auth: AdminSignIn, presented: string | undefined, needed: AdminRole): Promise<AdminDecision> {
  if (!presented) return { allow: false, status: 401, error: auth.signIn ? `${INVALID_ADMIN_TOKEN} or sign-in token` : INVALID_ADMIN_TOKEN };
  if (secretsEqual(presented, await auth.adminToken())) return { allow: true, caller: { via: 'admin-token', role: 'admin' } };
  if (!auth.signIn || !JWT_SHAPE.test(presented)) return { allow: false, status: 401, error: INVALID_ADMIN_TOKEN };
  const check = await auth.signIn.verify(presented);
  if (!check.ok) return { allow: false, status: 401, error: check.error };
  const { role, subject, email } = check.person;
  if (!role) return { allow: false, status: 403, error: NO_ROLE_ERROR };
  if (!roleAllows(role, needed)) return { allow: false, status: 403, error: roleNeededError(role, needed) };
  return { allow: true, caller: { via: 'sign-in', subject, ...(email ? { email } : {}), role } };
}
