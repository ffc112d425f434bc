/**
 * Admin CORS through the local server: with a dashboard origin configured (TALLY_DASHBOARD_ORIGIN for
 * npm start), admin responses let that origin's browser read them and no other; without one (the
 * default: the dashboard is served on the API's origin) admin routes send no CORS header at all.
 * Ingestion keeps reflecting any Origin either way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestProject, type TestStack } from '../helpers/local';

const DASHBOARD = 'http://dashboard.localhost:5173';
const OTHER = 'https://evil.example';

let withDashboard: TestStack;
let key: string;
let sameOrigin: TestStack;
beforeAll(async () => {
  ({ stack: withDashboard, key } = await startTestProject('admin cors', { dashboardOrigin: DASHBOARD }));
  ({ stack: sameOrigin } = await startTestProject('admin cors, same origin'));
});
afterAll(async () => {
  await withDashboard?.stop();
  await sameOrigin?.stop();
});

const adminGet = (stack: TestStack, origin: string, token = ADMIN_TOKEN) =>
  fetch(`${stack.url}/admin/v1/projects`, { headers: { Authorization: `Bearer ${token}`, Origin: origin } });

const preflight = (stack: TestStack, origin: string, path = '/admin/v1/projects') =>
  fetch(`${stack.url}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'PATCH', 'Access-Control-Request-Headers': 'authorization, content-type' },
  });

describe('admin CORS with a dashboard origin configured', () => {
  it('an admin request from the dashboard origin gets its allow-origin header', async () => {
    const res = await adminGet(withDashboard, DASHBOARD);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
    expect(res.headers.get('vary')).toBe('Origin');
    expect(((await res.json()) as { projects: unknown[] }).projects.length).toBeGreaterThan(0);
  });

  it('an admin request from another origin gets no allow-origin (the browser hides the answer)', async () => {
    const res = await adminGet(withDashboard, OTHER);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it("a 401 reaches the dashboard readable (it returns to sign-in), and another origin's unreadable", async () => {
    const mine = await adminGet(withDashboard, DASHBOARD, 'wrong-token-0123456789');
    expect(mine.status).toBe(401);
    expect(mine.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
    const theirs = await adminGet(withDashboard, OTHER, 'wrong-token-0123456789');
    expect(theirs.status).toBe(401);
    expect(theirs.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the preflight of an admin path for the dashboard origin only', async () => {
    for (const path of ['/admin/v1/projects', '/admin/v1/projects/p/experiments/e']) {
      const ok = await preflight(withDashboard, DASHBOARD, path);
      expect(ok.status, path).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
      expect(ok.headers.get('access-control-allow-methods')).toBe('GET, POST, PATCH, DELETE');
      expect(ok.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type');
      const refused = await preflight(withDashboard, OTHER, path);
      expect(refused.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });

  it('ingestion still reflects any origin', async () => {
    const res = await fetch(`${withDashboard.url}/v1/events`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Origin: OTHER },
      body: JSON.stringify({ events: [{ name: 'page_view', user_id: 'u1' }] }),
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe(OTHER);
  });
});

describe('admin CORS without a dashboard origin (npm start serves the dashboard on its own origin)', () => {
  it('admin responses carry no CORS header, whatever the Origin', async () => {
    for (const origin of [DASHBOARD, OTHER]) {
      const res = await adminGet(sameOrigin, origin);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('vary')).toBeNull();
    }
  });

  it('an admin preflight is not answered', async () => {
    const res = await preflight(sameOrigin, DASHBOARD);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
