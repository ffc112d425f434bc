/** Experiments through the local server: the dashboard's operations and the public endpoints. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { variantFor } from '../../lambdas/domain/bucketing';
import { DynamoAssignmentStore } from '../../lambdas/store/assignment-store';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('experiments'));
});
afterAll(() => stack.stop());

const base = () => `/admin/v1/projects/${project}/experiments`;
async function get(path: string, k = key) {
  const res = await fetch(stack.url + path, { headers: { Authorization: `Bearer ${k}` } });
  return { status: res.status, body: (await res.json()) as any };
}
async function createRunning(name: string, variants?: string[]) {
  const created = await stack.admin('POST', base(), { name, goal_event: 'purchase', variants });
  expect(created.status).toBe(201);
  expect((await stack.admin('POST', `${base()}/${created.body.id}/start`)).status).toBe(200);
  return created.body as { id: string; name: string; variants: string[] };
}

describe('experiment admin API', () => {
  it('creates with defaults, lists, gets, edits while created, starts and stops', async () => {
    const created = await stack.admin('POST', base(), { name: 'New Onboarding', goal_event: 'signup', description: 'Shorter form' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'New Onboarding',
      variants: ['a', 'b'],
      goal_event: 'signup',
      status: 'created',
      created_at: expect.any(String),
    });
    const id = created.body.id;
    expect((await stack.admin('GET', base())).body.experiments.map((e: { id: string }) => e.id)).toContain(id);
    // No results yet: the list says so with a null summary.
    expect((await stack.admin('GET', base())).body.experiments.find((e: { id: string }) => e.id === id).results_summary).toBeNull();
    const patched = await stack.admin('PATCH', `${base()}/${id}`, { variants: ['control', 'short', 'shorter'], name: 'Onboarding v2' });
    expect(patched.body).toMatchObject({ name: 'Onboarding v2', variants: ['control', 'short', 'shorter'] });
    expect((await stack.admin('GET', `${base()}/${id}`)).body.name).toBe('Onboarding v2');

    const started = await stack.admin('POST', `${base()}/${id}/start`);
    expect(started.body).toMatchObject({ status: 'running', started_at: expect.any(String) });
    const stopped = await stack.admin('POST', `${base()}/${id}/stop`);
    expect(stopped.body).toMatchObject({ status: 'stopped', stopped_at: expect.any(String) });
  });

  it('refuses transitions the state table does not allow with 409 naming the status', async () => {
    const created = await stack.admin('POST', base(), { name: 'Transitions', goal_event: 'x' });
    const id = created.body.id;
    const stopEarly = await stack.admin('POST', `${base()}/${id}/stop`);
    expect(stopEarly.status).toBe(409);
    expect(stopEarly.body.error).toMatch(/status is created/);
    await stack.admin('POST', `${base()}/${id}/start`);
    expect((await stack.admin('POST', `${base()}/${id}/start`)).body.error).toMatch(/status is running/);
    expect((await stack.admin('PATCH', `${base()}/${id}`, { goal_event: 'y' })).status).toBe(409);
    await stack.admin('POST', `${base()}/${id}/stop`);
    const restart = await stack.admin('POST', `${base()}/${id}/start`);
    expect(restart.status).toBe(409);
    expect(restart.body.error).toMatch(/status is stopped.*Stopped is final/);
  });

  it('validates by field and keeps names unique by their snake_case form', async () => {
    const cases: Array<[unknown, number, RegExp]> = [
      [{ name: 'No goal' }, 400, /goal_event: goal_event is required/],
      [{ goal_event: 'x' }, 400, /name: name is required/],
      [{ name: 'One', goal_event: 'x', variants: ['only'] }, 400, /variants: variants needs at least two entries/],
      [{ name: 'Dup', goal_event: 'x', variants: ['a', 'a'] }, 400, /variants must be unique/],
      [{ name: 'Empty', goal_event: 'x', variants: ['a', ''] }, 400, /variants must not be empty/],
      [{ name: '!!!', goal_event: 'x' }, 400, /name must contain letters or digits/],
    ];
    for (const [body, status, pattern] of cases) {
      const res = await stack.admin('POST', base(), body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error).toMatch(pattern);
    }
    expect((await stack.admin('POST', base(), { name: 'Checkout Flow', goal_event: 'x' })).status).toBe(201);
    const clash = await stack.admin('POST', base(), { name: 'checkout-flow', goal_event: 'x' });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatch(/checkout_flow/);
    const concurrent = await Promise.all([1, 2, 3].map(() => stack.admin('POST', base(), { name: 'Race Name', goal_event: 'x' })));
    expect(concurrent.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it('keeps names unambiguous under all three spellings, with a 409 naming the shared spelling and its holder', async () => {
    const hero = await stack.admin('POST', base(), { name: 'Hero Banner', goal_event: 'x' });
    expect(hero.status).toBe(201);
    // hero__banner is the MGM SDKs' spelling of "Hero Banner"; HeroBanner is hero_banner in Tally's.
    for (const name of ['hero__banner', 'HeroBanner', 'hero banner']) {
      const clash = await stack.admin('POST', base(), { name, goal_event: 'x' });
      expect(clash.status, name).toBe(409);
      expect(clash.body.error).toContain(`clashes with experiment ${hero.body.id} ("Hero Banner")`);
    }
    const sdk = await stack.admin('POST', base(), { name: 'hero__banner', goal_event: 'x' });
    expect(sdk.body.error).toMatch(/both are spelled "hero__banner"/);
    // A rename to a clashing name is refused and keeps the old claims; a rename away frees them.
    const other = await stack.admin('POST', base(), { name: 'Side Panel', goal_event: 'x' });
    expect((await stack.admin('PATCH', `${base()}/${other.body.id}`, { name: 'hero_banner' })).status).toBe(409);
    expect((await stack.admin('POST', base(), { name: 'side__panel', goal_event: 'x' })).status).toBe(409);
    expect((await stack.admin('PATCH', `${base()}/${hero.body.id}`, { name: 'Hero Image' })).status).toBe(200);
    expect((await stack.admin('POST', base(), { name: 'hero__banner', goal_event: 'x' })).status).toBe(201);
    expect((await stack.admin('POST', base(), { name: 'hero__image', goal_event: 'x' })).status).toBe(409);
  });

  it('answers 404 for unknown experiments', async () => {
    expect((await stack.admin('GET', `${base()}/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
  });
});

describe('GET /v1/experiments and /v1/experiments/configs', () => {
  it('follow the experiment states: only running experiments appear', async () => {
    const created = await stack.admin('POST', base(), { name: 'States Visible', goal_event: 'x', variants: ['x', 'y', 'z'] });
    const id = created.body.id;
    const listed = async () => ({
      configs: (await get('/v1/experiments/configs?user_id=ignored')).body.experiments.map((e: { id: string }) => e.id),
      legacy: (await get('/v1/experiments')).body.experiments.map((e: { id: string }) => e.id),
      assigned: Object.keys((await get('/v1/experiments?user_id=visitor')).body.assigned_variants),
    });
    expect(await listed()).toEqual({
      configs: expect.not.arrayContaining([id]),
      legacy: expect.not.arrayContaining([id]),
      assigned: expect.not.arrayContaining(['States Visible']),
    });
    await stack.admin('POST', `${base()}/${id}/start`);
    const running = await listed();
    expect(running.configs).toContain(id);
    expect(running.legacy).toContain(id);
    expect(running.assigned).toContain('States Visible');
    expect((await get('/v1/experiments/configs')).body.experiments).toContainEqual({ id, name: 'States Visible', variants: ['x', 'y', 'z'] });
    expect((await get('/v1/experiments')).body.experiments).toContainEqual({ id, variants: ['x', 'y', 'z'] });
    await stack.admin('POST', `${base()}/${id}/stop`);
    expect(await listed()).toEqual({
      configs: expect.not.arrayContaining([id]),
      legacy: expect.not.arrayContaining([id]),
      assigned: expect.not.arrayContaining(['States Visible']),
    });
  });

  it('assigns a fresh ID the variant of the spec’s hash rule, and keeps it sticky', async () => {
    const exp = await createRunning('Hash Rule', ['control', 'treatment', 'other']);
    for (const id of ['fresh-1', 'fresh-2', 'fresh-3', 'fresh-4']) {
      const res = await get(`/v1/experiments?anonymous_id=${id}`);
      expect(res.status).toBe(200);
      expect(res.body.assigned_variants['Hash Rule']).toBe(variantFor(exp.id, id, exp.variants));
      expect((await get(`/v1/experiments?anonymous_id=${id}`)).body.assigned_variants['Hash Rule']).toBe(res.body.assigned_variants['Hash Rule']);
    }
  });

  it('keeps an anonymous visitor’s variant after login, and on later requests with only user_id', async () => {
    const exp = await createRunning('Sticky Login', ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    // Find an anonymous ID and a user ID whose own buckets differ, so stickiness is observable.
    let anon = '',
      user = '';
    for (let i = 0; !anon; i++) {
      if (variantFor(exp.id, `anon-s${i}`, exp.variants) !== variantFor(exp.id, `user-s${i}`, exp.variants)) [anon, user] = [`anon-s${i}`, `user-s${i}`];
    }
    const before = (await get(`/v1/experiments?anonymous_id=${anon}`)).body.assigned_variants['Sticky Login'];
    const afterLogin = (await get(`/v1/experiments?user_id=${user}&anonymous_id=${anon}`)).body.assigned_variants['Sticky Login'];
    const later = (await get(`/v1/experiments?user_id=${user}`)).body.assigned_variants['Sticky Login'];
    expect(before).toBe(variantFor(exp.id, anon, exp.variants));
    expect(afterLogin).toBe(before);
    expect(later).toBe(before);
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users/${user}`)).body.user_id).toBe(anon);
  });

  it('agrees on one variant when two first requests race', async () => {
    await createRunning('Race Assign');
    const results = await Promise.all(Array.from({ length: 8 }, () => get('/v1/experiments?user_id=racer')));
    expect(new Set(results.map((r) => r.body.assigned_variants['Race Assign'])).size).toBe(1);
  });

  it('costs one batched read of stored assignments, and writes only for new assignments', async () => {
    const store = stack.deps.assignments as DynamoAssignmentStore;
    await get('/v1/experiments?user_id=warm-up');
    const running = (await get('/v1/experiments/configs')).body.experiments.length;
    expect(running).toBeGreaterThan(2);
    const before = { ...store.calls };
    await get('/v1/experiments?user_id=cost-user');
    expect(store.calls.batchGet - before.batchGet).toBe(1);
    expect(store.calls.put - before.put).toBe(running);
    const again = { ...store.calls };
    await get('/v1/experiments?user_id=cost-user');
    expect(store.calls).toEqual({ ...again, batchGet: again.batchGet + 1 });
  });

  it('answers 200 to odd parameters and 401 to a bad key, with the spec body', async () => {
    expect((await get('/v1/experiments?user_id=')).body).toHaveProperty('experiments');
    expect((await get(`/v1/experiments?user_id=${'x'.repeat(2000)}`)).body).toEqual({ assigned_variants: {} });
    for (const path of ['/v1/experiments', '/v1/experiments?user_id=u', '/v1/experiments/configs']) {
      const res = await get(path, 'tally_wrong');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Invalid or missing API key' });
    }
  });

  it('never shows one project’s experiments to another project’s key', async () => {
    await createRunning('Private To Project');
    const other = await stack.createProject('other experiments');
    const otherKey = await stack.createKey(other);
    expect((await get('/v1/experiments/configs', otherKey)).body).toEqual({ experiments: [] });
    expect((await get('/v1/experiments?user_id=u', otherKey)).body).toEqual({ assigned_variants: {} });
  });

  it('stores exposure events and super properties like any event, even for unknown experiments, and warns about those', async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    process.env.TALLY_LOG_LEVEL = 'warn';
    const res = await stack.post('/v1/events', key, {
      events: [
        // Distinct timestamps: the spec's dedupe key is (name, user_id, timestamp), properties aside.
        { name: '$experiment_exposure', user_id: 'exp-user', timestamp: 1767225600001, properties: { $experiment_name: 'sticky_login', $variant: 'b' } },
        { name: '$experiment_exposure', user_id: 'exp-user', timestamp: 1767225600002, properties: { $experiment_name: 'Does Not Exist', $variant: 'a' } },
        { name: 'page_view', user_id: 'exp-user', timestamp: 1767225600003, properties: { $experiment_sticky_login: 'b' } },
      ],
    });
    process.env.TALLY_LOG_LEVEL = 'silent';
    spy.mockRestore();
    expect(res.status).toBe(204);
    expect(stack.rawEvents(project).filter((e) => e.sent_user_id === 'exp-user')).toHaveLength(3);
    const warning = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'events name unknown experiments');
    expect(warning).toMatchObject({ project_id: project, unknown_experiments: 1 });
    expect(JSON.stringify(warning)).not.toMatch(/does.not.exist/i); // a client-sent name: counted, never logged
  });
});
