/**
 * Signed-in people on the admin API: an OIDC token (Authorization: Bearer <jwt>) checked against the
 * configured issuer (lambdas/adapters/oidc-verifier.ts). Unset, only the admin token signs in.
 */
import type { AdminRole } from '../domain/admin-role';

export interface SignedInPerson {
  /** The token's `sub`. */
  subject: string;
  /** The token's `email` claim, when it has one (ID tokens; Cognito access tokens have none). */
  email?: string;
  /** The highest role the token's groups map to; undefined when none is mapped. */
  role: AdminRole | undefined;
}

export type SignInCheck = { ok: true; person: SignedInPerson } | { ok: false; error: string };

export interface SignInVerifier {
  /**
   * Verifies a token: signature against the issuer's published keys (allow-listed algorithms only),
   * issuer, audience, expiry. A refusal says what is wrong, for the 401's body. The issuer's keys being
   * unreachable is thrown (a transient failure: 503), not a refusal.
   */
  verify(token: string): Promise<SignInCheck>;
}
