/**
 * People sign in to the admin API with OIDC tokens of the configured issuer (an in-process issuer
 * with a generated key pair and its JWKS, test/helpers/oidc-issuer.ts); the admin token keeps working.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GROUP_ROLES, DEFAULT_GROUPS_CLAIM } from '../../lambdas/domain/group-roles';
import { ADMIN_TOKEN, startTestStack, type TestStack } from '../helpers/local';
import { callWith, startSignInStack, TEST_CLIENT_ID, unsignedToken, type TestIssuer } from '../helpers/oidc-issuer';

let issuer: TestIssuer;
let stack: TestStack;
let stop: () => Promise<void>;
let project: string;
let key: string;

beforeAll(async () => {
  ({ issuer, stack, stop } = await startSignInStack());
  project = await stack.createProject('sign-in');
  key = await stack.createKey(project);
});
afterAll(() => stop());

const call = (token: string, method: string, path: string, body?: unknown) => callWith(stack, token, method, path, body);

const experiment = { name: 'Sign-in test', goal_event: 'buy' };

describe('sign-in tokens', () => {
  it('a valid token of a viewer reads the admin API', async () => {
    const token = await issuer.token({ groups: ['viewer'], email: 'vera@example.com' });
    const res = await call(token, 'GET', '/admin/v1/projects');
    expect(res.status).toBe(200);
    expect(res.body.projects.map((p: { id: string }) => p.id)).toContain(project);
  });

  it.each([
    ['expired', { expiresIn: -120 }, 'Your sign-in token has expired: sign in again'],
    [
      'for another audience',
      { aud: 'some-other-app' },
      `The sign-in token is not for this Tally (its audience or client_id is not ${TEST_CLIENT_ID}): sign in through the dashboard`,
    ],
    ['from another issuer', { iss: 'https://evil.example.com' }, 'was not issued by'],
    [
      'signed with a key the issuer never published',
      { foreignKey: true },
      "The sign-in token's signature does not verify with the issuer's published keys: sign in again",
    ],
  ] as const)('a token %s is refused with 401 saying so', async (_what, options, message) => {
    const res = await call(await issuer.token({ groups: ['admin'], ...options }), 'GET', '/admin/v1/projects');
    expect(res.status).toBe(401);
    expect(res.body.error).toContain(message);
  });

  it('an unsigned token (alg: none) is refused with 401', async () => {
    const res = await call(unsignedToken(issuer.issuer, ['admin']), 'POST', '/admin/v1/projects', { name: 'forged' });
    expect(res.status).toBe(401);
    expect(res.body.error).toContain('signing algorithm is not accepted');
    const list = await stack.admin('GET', '/admin/v1/projects');
    expect(list.body.projects.map((p: { name: string }) => p.name)).not.toContain('forged');
  });

  it("a token signed with HMAC (HS256) is refused with 401: only the issuer's public-key algorithms are accepted", async () => {
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ 'cognito:groups': ['admin'] })
      .setProtectedHeader({ alg: 'HS256', kid: 'test-key-1' })
      .setSubject('forger')
      .setIssuer(issuer.issuer)
      .setAudience(TEST_CLIENT_ID)
      .setExpirationTime(now + 300)
      .sign(new TextEncoder().encode('a shared secret an attacker picked, 32+ bytes long'));
    const res = await call(forged, 'GET', '/admin/v1/projects');
    expect(res.status).toBe(401);
    expect(res.body.error).toContain('signing algorithm is not accepted');
  });

  it("a viewer's write gets 403 naming the role it needs, and nothing changes", async () => {
    const token = await issuer.token({ groups: ['viewer'] });
    const res = await call(token, 'POST', `/admin/v1/projects/${project}/experiments`, experiment);
    expect(res.status).toBe(403);
    expect(res.body.error).toContain('needs the experimenter role');
    expect(res.body.error).toContain('signed in as viewer');
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/experiments`)).body.experiments).toEqual([]);
    const key = await call(token, 'POST', `/admin/v1/projects/${project}/keys`, {});
    expect(key.status).toBe(403);
    expect(key.body.error).toContain('needs the admin role');
  });

  it('a role change takes effect on the next token', async () => {
    const before = await issuer.token({ sub: 'erin', groups: ['analyst'] });
    expect((await call(before, 'POST', `/admin/v1/projects/${project}/experiments`, experiment)).status).toBe(403);
    // Erin is added to the experimenter group: the issuer's next token carries it.
    const after = await issuer.token({ sub: 'erin', groups: ['analyst', 'experimenter'] });
    const res = await call(after, 'POST', `/admin/v1/projects/${project}/experiments`, experiment);
    expect(res.status).toBe(201);
    // An analyst may not manage projects; an admin may.
    expect((await call(after, 'PATCH', `/admin/v1/projects/${project}`, { name: 'renamed' })).status).toBe(403);
    const admin = await issuer.token({ sub: 'ada', groups: ['admin'] });
    expect((await call(admin, 'PATCH', `/admin/v1/projects/${project}`, { name: 'renamed' })).status).toBe(200);
  });

  it('a signed-in person in no mapped group gets 403 saying how to get a role', async () => {
    const res = await call(await issuer.token({ groups: ['marketing'] }), 'GET', '/admin/v1/projects');
    expect(res.status).toBe(403);
    expect(res.body.error).toContain('none of your groups is mapped to a Tally role');
  });

  it('the admin token keeps working beside sign-in, as admin', async () => {
    expect((await call(ADMIN_TOKEN, 'PATCH', `/admin/v1/projects/${project}`, { name: 'sign-in' })).status).toBe(200);
    expect((await call('not-the-admin-token-nor-a-jwt', 'GET', '/admin/v1/projects')).status).toBe(401);
  });

  it('cross-access rules stay: a sign-in token opens no ingestion route, a project key no admin route', async () => {
    const token = await issuer.token({ groups: ['admin'] });
    const ingest = await stack.post('/v1/events', token, { events: [{ name: 'x' }] });
    expect(ingest.status).toBe(401);
    const admin = await call(key, 'GET', '/admin/v1/projects');
    expect(admin.status).toBe(401);
  });
});

describe('an issuer that cannot be reached', () => {
  it('answers 503 (retry), never 401, and the admin token still works', async () => {
    const unreachable = await startTestStack({
      oidc: { issuer: 'http://127.0.0.1:9', audience: TEST_CLIENT_ID, groupsClaim: DEFAULT_GROUPS_CLAIM, groupRoles: DEFAULT_GROUP_ROLES },
    });
    try {
      const res = await callWith(unreachable, await issuer.token({ groups: ['admin'] }), 'GET', '/admin/v1/projects');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect((await unreachable.admin('GET', '/admin/v1/projects')).status).toBe(200);
    } finally {
      await unreachable.stop();
    }
  });
});
