/**
 * A test OpenID issuer in-process: a key pair generated per run, its discovery document and JWKS
 * served over HTTP on a free port, and tokens signed as the issuer signs them (RS256, kid). The admin
 * API fetches the keys from here exactly as it fetches Cognito's or Okta's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { DEFAULT_GROUP_ROLES, DEFAULT_GROUPS_CLAIM } from '../../lambdas/domain/group-roles';
import { startTestStack, type TestStack } from './local';

export const TEST_CLIENT_ID = 'tally-dashboard-test';

export interface TokenOptions {
  sub?: string;
  email?: string;
  groups?: string[];
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
  aud?: string;
  iss?: string;
  /** Sign with another key pair (one this issuer never published), under the published kid. */
  foreignKey?: boolean;
  groupsClaim?: string;
  extra?: JWTPayload;
}

export interface TestIssuer {
  issuer: string;
  token(options?: TokenOptions): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIssuer(): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const kid = 'test-key-1';
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((req, res) => {
    const send = (body: unknown) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration')
      return send({ issuer, jwks_uri: `${issuer}/jwks.json`, id_token_signing_alg_values_supported: ['RS256'] });
    if (req.url === '/jwks.json') return send({ keys: [jwk] });
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    async token(o = {}) {
      const key: CryptoKey = o.foreignKey ? foreign.privateKey : privateKey;
      return new SignJWT({ ...(o.email ? { email: o.email } : {}), [o.groupsClaim ?? 'cognito:groups']: o.groups ?? [], ...o.extra })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setSubject(o.sub ?? 'user-1')
        .setIssuer(o.iss ?? issuer)
        .setAudience(o.aud ?? TEST_CLIENT_ID)
        .setIssuedAt()
        .setExpirationTime(Math.floor(Date.now() / 1000) + (o.expiresIn ?? 300))
        .sign(key);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An unsigned token (`alg: none`) with the claims of a valid admin: what an attacker would forge. */
export function unsignedToken(issuer: string, groups: string[]): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'forger', iss: issuer, aud: TEST_CLIENT_ID, exp: now + 300, 'cognito:groups': groups })}.`;
}

/** A local test stack whose admin API accepts this issuer's tokens (default groups claim and mapping), with the issuer. */
export async function startSignInStack(): Promise<{ issuer: TestIssuer; stack: TestStack; stop: () => Promise<void> }> {
  const issuer = await startTestIssuer();
  const stack = await startTestStack({
    oidc: { issuer: issuer.issuer, audience: TEST_CLIENT_ID, groupsClaim: DEFAULT_GROUPS_CLAIM, groupRoles: DEFAULT_GROUP_ROLES },
  });
  return {
    issuer,
    stack,
    stop: async () => {
      await stack.stop();
      await issuer.close();
    },
  };
}

/** An admin API call with a bearer token (a sign-in token, the admin token, anything). */
export async function callWith(stack: TestStack, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(stack.url + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text, headers: res.headers };
}
