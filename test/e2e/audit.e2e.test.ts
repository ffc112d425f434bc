/**
 * The audit log: every admin write records who, what (route, path IDs, validated field names, never
 * values), when, from which network and the answer; GET /admin/v1/audit lists it with filters and
 * pages, for admins only; nothing changes it through the API; a write whose entry cannot be recorded
 * does not run.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectWatchedByAlarm } from '../helpers/emf';
import { ADMIN_TOKEN, startTestStack, type TestStack } from '../helpers/local';
import { callWith, startSignInStack, type TestIssuer } from '../helpers/oidc-issuer';

let issuer: TestIssuer;
let stack: TestStack;
let stop: () => Promise<void>;
let project: string;

beforeAll(async () => {
  ({ issuer, stack, stop } = await startSignInStack());
  project = await stack.createProject('audited');
});
afterAll(() => stop());

const call = (token: string, method: string, path: string, body?: unknown) => callWith(stack, token, method, path, body);

describe('audit log', () => {
  it("records a signed-in person's write: who, route, target, field names, network and status, no values", async () => {
    const token = await issuer.token({ sub: 'sub-erin', email: 'erin@example.com', groups: ['experimenter'] });
    const created = await call(token, 'POST', `/admin/v1/projects/${project}/experiments`, { name: 'Secret launch plan', goal_event: 'purchase_x' });
    expect(created.status).toBe(201);
    const log = await call(ADMIN_TOKEN, 'GET', `/admin/v1/audit?actor=erin@example.com`);
    expect(log.status).toBe(200);
    expect(log.body.entries).toHaveLength(1);
    expect(log.body.entries[0]).toMatchObject({
      actor: { via: 'sign-in', subject: 'sub-erin', email: 'erin@example.com' },
      role: 'experimenter',
      route: 'admin-experiments-create',
      method: 'POST',
      target: { project_id: project },
      fields: ['goal_event', 'name'],
      network: '127.0.0.0/24',
      status: 201,
    });
    expect(Date.now() - Date.parse(log.body.entries[0].at)).toBeLessThan(60_000);
    expect(log.text).not.toContain('Secret launch plan');
    expect(log.text).not.toContain('purchase_x');
  });

  it('records the admin token as the actor, and a refused write with its status', async () => {
    const bad = await call(ADMIN_TOKEN, 'PATCH', `/admin/v1/projects/${project}`, { time_zone: 'Mars/Olympus' });
    expect(bad.status).toBe(400);
    const log = await call(ADMIN_TOKEN, 'GET', `/admin/v1/audit?route=admin-projects-update&project_id=${project}`);
    expect(log.body.entries[0]).toMatchObject({ actor: { via: 'admin-token' }, role: 'admin', status: 400, target: { project_id: project } });
    expect(log.text).not.toContain('Mars/Olympus');
  });

  it('records no reads', async () => {
    await call(ADMIN_TOKEN, 'GET', `/admin/v1/projects/${project}/experiments`);
    const log = await call(ADMIN_TOKEN, 'GET', '/admin/v1/audit?limit=100');
    expect(log.body.entries.map((e: { method: string }) => e.method)).not.toContain('GET');
  });

  it('lists newest first in pages, and filters by time', async () => {
    const before = new Date().toISOString();
    // The writes below happen after `before`, not in its millisecond: `to` is inclusive, and an entry
    // stamped with `before` itself would be listed as old (it failed once in CI so).
    while (new Date().toISOString() <= before) await new Promise((resolve) => setTimeout(resolve, 1));
    for (const name of ['a', 'b', 'c']) expect((await call(ADMIN_TOKEN, 'POST', '/admin/v1/projects', { name })).status).toBe(201);
    const first = await call(ADMIN_TOKEN, 'GET', `/admin/v1/audit?route=admin-projects-create&from=${before}&limit=2`);
    expect(first.body.entries).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await call(ADMIN_TOKEN, 'GET', `/admin/v1/audit?route=admin-projects-create&from=${before}&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.entries).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    const all = [...first.body.entries, ...second.body.entries];
    const times = all.map((e: { at: string }) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    const old = await call(ADMIN_TOKEN, 'GET', `/admin/v1/audit?route=admin-projects-create&to=${before}`);
    expect(old.body.entries.every((e: { at: string }) => e.at <= before)).toBe(true);
    expect(old.body.entries.length).toBe(1);
  });

  it('is for admins only, and refuses bad filters saying what to send', async () => {
    const viewer = await call(await issuer.token({ groups: ['experimenter'] }), 'GET', '/admin/v1/audit');
    expect(viewer.status).toBe(403);
    expect(viewer.body.error).toContain('needs the admin role');
    const bad = await call(ADMIN_TOKEN, 'GET', '/admin/v1/audit?from=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('from must be an ISO 8601 time');
    const cursor = await call(ADMIN_TOKEN, 'GET', '/admin/v1/audit?cursor=bm9wZQ');
    expect(cursor.status).toBe(400);
  });

  it('cannot be changed through the API', async () => {
    for (const method of ['POST', 'PATCH', 'DELETE', 'PUT']) {
      expect((await call(ADMIN_TOKEN, method, '/admin/v1/audit', {})).status, method).toBe(404);
    }
  });
});

describe('audit log unavailable', () => {
  let broken: TestStack;
  beforeAll(async () => {
    broken = await startTestStack({
      overrides: (deps) => ({
        ...deps,
        audit: {
          ...deps.audit,
          begin: async () => {
            throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException', $metadata: { httpStatusCode: 400 } });
          },
          finish: deps.audit.finish.bind(deps.audit),
          list: deps.audit.list.bind(deps.audit),
        },
      }),
    });
  });
  afterAll(() => broken.stop());

  it('a write whose entry cannot be recorded is refused (503), does not run, and emits the alarmed AuditRecordFailed metric', async () => {
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any, ...rest: any[]) => {
      lines.push(String(chunk));
      return write(chunk, ...rest);
    });
    const res = await broken.admin('POST', '/admin/v1/projects', { name: 'unrecorded' }).finally(() => spy.mockRestore());
    expect(res.status).toBe(503);
    const emf = lines.flatMap((l) => l.split('\n')).filter((l) => l.includes('"AuditRecordFailed"') && l.includes('"_aws"'));
    expect(emf).toHaveLength(1);
    for (const line of emf) expectWatchedByAlarm(line);
    const list = await broken.admin('GET', '/admin/v1/projects');
    expect(list.body.projects.map((p: { name: string }) => p.name)).not.toContain('unrecorded');
  });
});
