/**
 * The admin functions' sign-in: the admin token from Secrets Manager, and people's OIDC tokens checked
 * with jose (lambdas/adapters/oidc-verifier.ts). Only the admin functions import this (lambdaHandler),
 * so the public ones load neither the Secrets Manager client nor jose.
 */
import { cachedSecretReader } from '../adapters/secret-reader';
import { OidcVerifier } from '../adapters/oidc-verifier';
import { DEFAULT_GROUP_ROLES, DEFAULT_GROUPS_CLAIM } from '../domain/group-roles';
import type { Wiring } from './aws';

export const secretsManagerAdminToken: Wiring<'adminToken'> = (env) => cachedSecretReader(env.ADMIN_TOKEN_SECRET_ARN, 'The admin token secret');

/** Sign-in tokens of OIDC_ISSUER for OIDC_AUDIENCE; unset issuer, none (the admin token only). */
export const oidcSignIn: Wiring<'signIn'> = (env) => {
  if (!env.OIDC_ISSUER) return undefined;
  if (!env.OIDC_AUDIENCE) throw new Error('Invalid or missing environment variables: OIDC_AUDIENCE (OIDC_ISSUER is set)');
  return new OidcVerifier({
    issuer: env.OIDC_ISSUER,
    audience: env.OIDC_AUDIENCE,
    groupsClaim: env.OIDC_GROUPS_CLAIM ?? DEFAULT_GROUPS_CLAIM,
    groupRoles: env.OIDC_GROUP_ROLES ?? DEFAULT_GROUP_ROLES,
  });
};

/** The admin entries' two ways of signing in (lambdas/entry/admin-wiring.ts passes them with the admin stores). */
export const adminSignIn = { adminToken: secretsManagerAdminToken, signIn: oidcSignIn } as const;
