/**
 * A test OpenID issuer in-process: a key pair generated per run, its discovery document and JWKS
 * served over HTTP on a free port, and tokens signed as the issuer signs them (RS256, kid). The admin
 * API fetches the keys from here exactly as it fetches Cognito's or Okta's.
 *
 * For the dashboard's sign-in it also has the authorization-code flow with PKCE (S256 only): an
 * authorization endpoint whose login page signs in a named test user of a chosen group (no password:
 * the page stands for the issuer's own sign-in) and keeps an issuer session in a cookie, so a second
 * authorization request from the same browser redirects back at once, as Cognito's or Okta's does; and
 * a token endpoint that checks the code, the client, the redirect URI and the code_verifier.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
  /** The token endpoint the discovery document names: on the issuer's origin, or on a second one (another port). */
  tokenEndpoint: string;
  token(options?: TokenOptions): Promise<string>;
  /** What the browser flow did so far: authorization requests, login pages shown, codes exchanged, refusals at the token endpoint. */
  counts: { authorize: number; loginPages: number; tokens: number; refused: string[] };
  close(): Promise<void>;
}

/** The login page's form field names, for tests that fill it in. */
export const LOGIN_FORM = { email: 'email', group: 'group' } as const;

interface AuthorizeRequest {
  client_id: string;
  redirect_uri: string;
  state: string;
  code_challenge: string;
  nonce?: string;
}

interface Person {
  email: string;
  groups: string[];
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const SESSION_COOKIE = 'test_issuer_session';
const CODE_SECONDS = 60;

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export interface TestIssuerOptions {
  /** Serve the token endpoint on a second origin (another port), as Google's is on oauth2.googleapis.com. */
  tokenOnSecondOrigin?: boolean;
  /** Lifetime of the tokens the token endpoint issues, in seconds (default 300). */
  tokenSeconds?: number;
}

export async function startTestIssuer(options: TestIssuerOptions = {}): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const kid = 'test-key-1';
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  let issuer = '';
  let tokenEndpoint = '';
  const counts: TestIssuer['counts'] = { authorize: 0, loginPages: 0, tokens: 0, refused: [] };
  const sessions = new Map<string, Person>();
  const codes = new Map<string, AuthorizeRequest & Person & { expires: number }>();

  const sign = async (o: TokenOptions = {}) => {
    const key: CryptoKey = o.foreignKey ? foreign.privateKey : privateKey;
    return new SignJWT({ ...(o.email ? { email: o.email } : {}), [o.groupsClaim ?? 'cognito:groups']: o.groups ?? [], ...o.extra })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject(o.sub ?? 'user-1')
      .setIssuer(o.iss ?? issuer)
      .setAudience(o.aud ?? TEST_CLIENT_ID)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + (o.expiresIn ?? 300))
      .sign(key);
  };

  // Discovery and the token endpoint are fetched by the dashboard's page from its own origin (CORS).
  const CORS = { 'Access-Control-Allow-Origin': '*' };
  const send = (res: ServerResponse, body: unknown, status = 200) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...CORS });
    res.end(JSON.stringify(body));
  };
  const redirectWithCode = (res: ServerResponse, request: AuthorizeRequest, person: Person, cookie?: string) => {
    const code = randomBytes(16).toString('base64url');
    codes.set(code, { ...request, ...person, expires: Date.now() + CODE_SECONDS * 1000 });
    const back = new URL(request.redirect_uri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', request.state);
    res.writeHead(302, { Location: back.href, ...(cookie ? { 'Set-Cookie': `${SESSION_COOKIE}=${cookie}; Path=/; HttpOnly; SameSite=Lax` } : {}) });
    res.end();
  };
  const authorizeRequest = (q: URLSearchParams): AuthorizeRequest | string => {
    if (q.get('response_type') !== 'code') return 'response_type must be code';
    if (q.get('client_id') !== TEST_CLIENT_ID) return 'unknown client_id';
    if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) return 'PKCE with S256 is required';
    const redirect = q.get('redirect_uri');
    if (!redirect || !/^http:\/\/127\.0\.0\.1:\d+\//.test(redirect)) return 'redirect_uri is not registered';
    const nonce = q.get('nonce');
    return {
      client_id: TEST_CLIENT_ID,
      redirect_uri: redirect,
      state: q.get('state') ?? '',
      code_challenge: q.get('code_challenge')!,
      ...(nonce ? { nonce } : {}),
    };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration')
      return send(res, {
        issuer,
        jwks_uri: `${issuer}/jwks.json`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: tokenEndpoint,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        code_challenge_methods_supported: ['S256'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    if (url.pathname === '/jwks.json') return send(res, { keys: [jwk] });
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    if (url.pathname === '/authorize' && req.method === 'GET') {
      counts.authorize++;
      const request = authorizeRequest(url.searchParams);
      if (typeof request === 'string') return void res.writeHead(400, { 'Content-Type': 'text/plain' }).end(request);
      const sid = /(?:^|; )test_issuer_session=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
      const person = sid ? sessions.get(sid) : undefined;
      if (person) return redirectWithCode(res, request, person);
      counts.loginPages++;
      const hidden = [...url.searchParams].map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join('');
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end(
        `<!doctype html><html lang="en"><title>Test issuer sign-in</title><h1>Test issuer</h1><form method="post" action="/authorize">${hidden}` +
          `<label>Email <input name="${LOGIN_FORM.email}" type="email" required></label>` +
          `<label>Group <select name="${LOGIN_FORM.group}"><option>viewer</option><option>analyst</option><option>experimenter</option><option>admin</option><option value="">none</option></select></label>` +
          `<button type="submit">Sign in</button></form></html>`,
      );
    }
    if (url.pathname === '/authorize' && req.method === 'POST') {
      const form = await formBody(req);
      const request = authorizeRequest(form);
      if (typeof request === 'string') return void res.writeHead(400, { 'Content-Type': 'text/plain' }).end(request);
      const group = form.get(LOGIN_FORM.group);
      const person = { email: form.get(LOGIN_FORM.email) ?? '', groups: group ? [group] : [] };
      const sid = randomBytes(16).toString('base64url');
      sessions.set(sid, person);
      return redirectWithCode(res, request, person, sid);
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = await formBody(req);
      const refuse = (why: string) => {
        counts.refused.push(why);
        send(res, { error: 'invalid_grant', error_description: why }, 400);
      };
      const code = form.get('code') ?? '';
      const grant = codes.get(code);
      codes.delete(code);
      if (form.get('grant_type') !== 'authorization_code') return refuse('grant_type must be authorization_code');
      if (!grant || grant.expires < Date.now()) return refuse('unknown, used or expired code');
      if (form.get('client_id') !== grant.client_id) return refuse('client_id differs from the authorization request');
      if (form.get('redirect_uri') !== grant.redirect_uri) return refuse('redirect_uri differs from the authorization request');
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== grant.code_challenge) return refuse('code_verifier does not match the code_challenge');
      counts.tokens++;
      const sub = `user-${createHash('sha256').update(grant.email).digest('hex').slice(0, 12)}`;
      const lifetime = options.tokenSeconds ?? 300;
      const claims = { sub, email: grant.email, groups: grant.groups, expiresIn: lifetime, ...(grant.nonce ? { extra: { nonce: grant.nonce } } : {}) };
      return send(res, {
        id_token: await sign(claims),
        access_token: await sign(claims),
        // Cognito returns a refresh token with the code grant: the dashboard must not keep it.
        refresh_token: `refresh-${randomBytes(16).toString('base64url')}`,
        token_type: 'Bearer',
        expires_in: lifetime,
        scope: 'openid email profile',
      });
    }
    res.writeHead(404, CORS).end();
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  const listen = async (s: Server) => {
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  };
  issuer = await listen(server);
  tokenEndpoint = `${issuer}/token`;
  // The second origin answers only the token endpoint (the same handler: the same codes and checks).
  const tokenServer = options.tokenOnSecondOrigin
    ? createServer((req, res) => {
        if (new URL(req.url ?? '/', issuer).pathname !== '/token') return void res.writeHead(404, CORS).end();
        handle(req, res).catch((err: unknown) => res.writeHead(500).end(String(err)));
      })
    : undefined;
  if (tokenServer) tokenEndpoint = `${await listen(tokenServer)}/token`;
  const closeServer = (s: Server) =>
    new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });

  return {
    issuer,
    tokenEndpoint,
    token: sign,
    counts,
    close: async () => {
      await closeServer(server);
      if (tokenServer) await closeServer(tokenServer);
    },
  };
}

/** An unsigned token (`alg: none`) with the claims of a valid admin: what an attacker would forge. */
export function unsignedToken(issuer: string, groups: string[]): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'forger', iss: issuer, aud: TEST_CLIENT_ID, exp: now + 300, 'cognito:groups': groups })}.`;
}

/**
 * A local test stack whose admin API accepts this issuer's tokens (default groups claim and mapping), with the issuer.
 * `connectOrigins`: the stack's TALLY_OIDC_CONNECT_ORIGINS; `'token endpoint'` names the issuer's token endpoint's origin.
 */
export async function startSignInStack(
  options: TestIssuerOptions & { connectOrigins?: 'token endpoint' } = {},
): Promise<{ issuer: TestIssuer; stack: TestStack; stop: () => Promise<void> }> {
  const issuer = await startTestIssuer(options);
  const stack = await startTestStack({
    oidc: {
      issuer: issuer.issuer,
      audience: TEST_CLIENT_ID,
      groupsClaim: DEFAULT_GROUPS_CLAIM,
      groupRoles: DEFAULT_GROUP_ROLES,
      ...(options.connectOrigins ? { connectOrigins: [new URL(issuer.tokenEndpoint).origin] } : {}),
    },
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
