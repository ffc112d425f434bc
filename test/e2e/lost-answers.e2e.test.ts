/**
 * The local server with DynamoDB answers lost in transit (test/helpers/answer-losing-proxy.ts between
 * the stores and dynalite): the write lands, the client retries, and the retry fails its condition on
 * the write's own effect. What a user sees must be what happened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnswerLosingProxy, type AnswerLosingProxy } from '../helpers/answer-losing-proxy';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;
let proxy: AnswerLosingProxy;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('lost answers', {
    interposeDynamo: async (endpoint) => (proxy = await startAnswerLosingProxy(endpoint)).endpoint,
  }));
});
afterAll(async () => {
  await stack.stop();
  await proxy.close();
});

const base = () => `/admin/v1/projects/${project}/experiments`;

describe('experiments when DynamoDB answers are lost', () => {
  it('a create answers 201, and its name stays taken', async () => {
    const lostBefore = proxy.lost;
    proxy.lose({ operation: 'PutItem', when: (b) => b.Item?.sk?.S?.startsWith('exp#') });
    const created = await stack.admin('POST', base(), { name: 'Checkout Flow', goal_event: 'purchase' });
    expect(proxy.lost - lostBefore).toBe(1);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await stack.admin('GET', `${base()}/${created.body.id}`)).body).toEqual(created.body);
    const clash = await stack.admin('POST', base(), { name: 'checkout-flow', goal_event: 'purchase' });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toContain(created.body.id);
  });

  it('a create that cannot be read back answers 503 and keeps its name: the retry finds the name taken by the stored experiment', async () => {
    const lostBefore = proxy.lost;
    let readsLost = false;
    proxy.lose({
      operation: 'PutItem',
      when: (b) => b.Item?.sk?.S?.startsWith('exp#'),
      times: 4,
      meanwhile: async () => {
        if (readsLost) return;
        readsLost = true;
        proxy.lose({ operation: 'GetItem', when: (b) => b.Key?.sk?.S?.startsWith('exp#'), times: 4 });
      },
    });
    const unknown = await stack.admin('POST', base(), { name: 'Hero Banner', goal_event: 'purchase' });
    expect(proxy.lost - lostBefore).toBe(8);
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(503);
    expect(unknown.body.error).toMatch(/may or may not have been stored.*retry/);
    expect(unknown.headers.get('retry-after')).toBe('1');
    const stored = (await stack.admin('GET', base())).body.experiments.filter((e: { name: string }) => e.name === 'Hero Banner');
    expect(stored).toHaveLength(1);
    const retry = await stack.admin('POST', base(), { name: 'Hero Banner', goal_event: 'purchase' });
    expect(retry.status).toBe(409);
    expect(retry.body.error).toContain(stored[0].id);
  });

  it('an edit retried after its answer was lost, with another edit in between, answers 409 and leaves the other edit', async () => {
    const created = await stack.admin('POST', base(), { name: 'Edit Race Zero', goal_event: 'purchase' });
    const lostBefore = proxy.lost;
    proxy.lose({
      operation: 'UpdateItem',
      when: (b) => String(b.ConditionExpression).startsWith('#status = :created'),
      meanwhile: async () => {
        const other = await stack.admin('PATCH', `${base()}/${created.body.id}`, { name: 'Edit Race Two' });
        expect(other.status, JSON.stringify(other.body)).toBe(200);
      },
    });
    const refused = await stack.admin('PATCH', `${base()}/${created.body.id}`, { name: 'Edit Race One' });
    expect(proxy.lost - lostBefore).toBe(1);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error).toMatch(/changed by another request.*load it again/);
    expect((await stack.admin('GET', `${base()}/${created.body.id}`)).body.name).toBe('Edit Race Two');
    expect((await stack.admin('POST', base(), { name: 'Edit Race One', goal_event: 'purchase' })).status).toBe(201);
  });

  it('a start and a stop answer 200 with the new status, not 409', async () => {
    const created = await stack.admin('POST', base(), { name: 'Pricing', goal_event: 'purchase' });
    const lostBefore = proxy.lost;
    proxy.lose({ operation: 'UpdateItem', when: (b) => b.ConditionExpression === '#status = :from' });
    const started = await stack.admin('POST', `${base()}/${created.body.id}/start`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ status: 'running', started_at: expect.any(String) });
    proxy.lose({ operation: 'UpdateItem', when: (b) => b.ConditionExpression === '#status = :from', as: 'internal-error' });
    const stopped = await stack.admin('POST', `${base()}/${created.body.id}/stop`);
    expect(proxy.lost - lostBefore).toBe(2);
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    expect(stopped.body).toEqual({ ...started.body, status: 'stopped', stopped_at: expect.any(String) });
  });
});

describe('identity stream when DynamoDB answers are lost', () => {
  it('a merged member whose re-point answer was lost still gets its line in the identity stream', async () => {
    const send = async (events: unknown[]) => {
      const res = await stack.post('/v1/events', key, { events });
      expect(res.status, res.text).toBe(204);
    };
    // a2 is seen first; m logs in from a1 (m points at a1); then a1 logs in from a2: a1's group, m
    // included, merges into a2's.
    await send([
      { name: 'page_view', user_id: 'a2', timestamp: '2026-04-01T10:00:00Z' },
      { name: 'page_view', user_id: 'a1', timestamp: '2026-04-01T10:00:01Z' },
    ]);
    await send([{ name: '$identify', user_id: 'm', timestamp: '2026-04-01T10:01:00Z', properties: { $anonymous_id: 'a1' } }]);
    const lostBefore = proxy.lost;
    proxy.lose({ operation: 'UpdateItem', when: (b) => b.ConditionExpression === 'canonical_id = :from' });
    await send([{ name: '$identify', user_id: 'a1', timestamp: '2026-04-01T10:02:00Z', properties: { $anonymous_id: 'a2' } }]);
    expect(proxy.lost - lostBefore).toBe(1);

    expect((await stack.admin('GET', `/admin/v1/projects/${project}/users/m`)).body.user_id).toBe('a2');
    // The stream's pointer for an ID is its highest-version line: m's must be the table's (a2, version 2).
    const lines = stack.identityRecords(project).filter((r) => r.id === 'm');
    const latest = lines.sort((x, y) => y.version - x.version)[0];
    expect(latest).toMatchObject({ canonical_id: 'a2', version: 2, reason: 'merge' });
  });
});
