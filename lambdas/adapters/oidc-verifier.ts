/**
 * The sign-in check of the admin API (docs/decisions/admin-sign-in.md): an OIDC token verified with
 * `jose` against the issuer's published keys. The issuer's discovery document
 * (<issuer>/.well-known/openid-configuration) names its key set (jwks_uri); jose fetches the keys,
 * caches them, and refetches when a token names a key it does not have (key rotation), at most every
 * 30 s. Only asymmetric algorithms are accepted, so `alg: none` and HMAC tokens are refused.
 */
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { roleFromClaims, type GroupRoles } from '../domain/group-roles';
import { TransientError } from '../domain/transient-error';
import type { SignInCheck, SignInVerifier } from '../ports';

/** The algorithms OIDC issuers sign with (Cognito, Okta, Entra ID and Google use RS256). */
export const SIGN_IN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384'];
/** Clock skew allowed on exp, nbf and iat. */
const CLOCK_TOLERANCE_SECONDS = 5;
const DISCOVERY_TIMEOUT_MS = 5_000;

export interface OidcConfig {
  /** The issuer, exactly as tokens' `iss` says it (no trailing slash for Cognito). */
  issuer: string;
  /** The client ID tokens are for: an ID token's `aud`, or a Cognito access token's `client_id`. */
  audience: string;
  groupsClaim: string;
  groupRoles: GroupRoles;
  /** Not the verifier's: more origins the dashboard's CSP lets the page reach while signing in (the token endpoint's, when not the issuer's). */
  connectOrigins?: readonly string[];
}

export const SIGN_IN_ERRORS = {
  expired: 'Your sign-in token has expired: sign in again',
  issuer: (issuer: string) => `The sign-in token was not issued by ${issuer}, the issuer this Tally trusts: sign in through the dashboard`,
  audience: (audience: string) => `The sign-in token is not for this Tally (its audience or client_id is not ${audience}): sign in through the dashboard`,
  algorithm: `The sign-in token's signing algorithm is not accepted (accepted: ${SIGN_IN_ALGORITHMS.join(', ')}; never none)`,
  signature: "The sign-in token's signature does not verify with the issuer's published keys: sign in again",
  malformed: 'The bearer token is neither the admin token nor a well-formed sign-in token (a JWT)',
  claims: 'The sign-in token lacks a required claim (sub, exp): sign in again',
} as const;

export class OidcVerifier implements SignInVerifier {
  private keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;

  constructor(private readonly config: OidcConfig) {}

  async verify(token: string): Promise<SignInCheck> {
    const keys = await this.keySet();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        algorithms: SIGN_IN_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (err) {
      const error = refusal(err, this.config);
      if (error) return { ok: false, error };
      // Not the token's fault: the issuer's key set could not be fetched or read (network, non-200, bad JSON).
      throw new TransientError(`The sign-in token could not be checked: the issuer's keys could not be read (${(err as Error).name})`);
    }
    if (!forAudience(payload, this.config.audience)) return { ok: false, error: SIGN_IN_ERRORS.audience(this.config.audience) };
    return {
      ok: true,
      person: {
        subject: payload.sub!,
        ...(typeof payload.email === 'string' ? { email: payload.email } : {}),
        role: roleFromClaims(payload, this.config.groupsClaim, this.config.groupRoles),
      },
    };
  }

  /** The issuer's key set, from its discovery document; a failed discovery is retried on the next request. */
  private keySet() {
    this.keys ??= discoverKeys(this.config.issuer).catch((err: unknown) => {
      this.keys = undefined;
      throw err;
    });
    return this.keys;
  }
}

/** An ID token's `aud` (a string or a list) names the client; a Cognito access token has `client_id` instead. */
function forAudience(payload: JWTPayload, audience: string): boolean {
  if (payload.aud !== undefined) return (Array.isArray(payload.aud) ? payload.aud : [payload.aud]).includes(audience);
  return payload.client_id === audience;
}

async function discoverKeys(issuer: string) {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let doc: { issuer?: unknown; jwks_uri?: unknown };
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    doc = (await res.json()) as typeof doc;
  } catch (err) {
    throw new TransientError(`The sign-in issuer's discovery document could not be read (${(err as Error).message})`);
  }
  if (doc.issuer !== issuer || typeof doc.jwks_uri !== 'string') {
    throw new Error(`The discovery document of ${issuer} names another issuer or no jwks_uri: check OIDC_ISSUER`);
  }
  return createRemoteJWKSet(new URL(doc.jwks_uri));
}

/** The 401 message for a token jose refused; undefined for a failure that is not the token's (keys unreachable). */
function refusal(err: unknown, config: OidcConfig): string | undefined {
  if (err instanceof errors.JWTExpired) return SIGN_IN_ERRORS.expired;
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'iss') return SIGN_IN_ERRORS.issuer(config.issuer);
    if (err.claim === 'sub' || err.claim === 'exp') return SIGN_IN_ERRORS.claims;
    return `The sign-in token's ${err.claim} claim is not valid: sign in again`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) return SIGN_IN_ERRORS.algorithm;
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) {
    return SIGN_IN_ERRORS.signature;
  }
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return SIGN_IN_ERRORS.malformed;
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) {
    throw new TransientError(`The sign-in issuer's keys could not be read (${err.message})`);
  }
  return undefined;
}
