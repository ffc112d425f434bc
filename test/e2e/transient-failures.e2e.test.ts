/**
 * A failure that may go away on a retry is answered 503 with Retry-After on every route, never 500:
 * a handler that runs out of its time budget, a timeout from the AWS client in a store no handler
 * catches itself, and a key lookup that fails before any handler runs (as API Gateway answers when the
 * authorizer fails). A permanent failure stays 500.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Deps } from '../../lambdas/deps';
import { startTestProject, type TestStack } from '../helpers/local';

/** What the AWS client throws when an attempt gets no answer in time (the AWS SDK's TimeoutError). */
const awsTimeout = () => Object.assign(new Error('No answer from dynamodb after 30000 ms without a byte on the connection'), { name: 'TimeoutError' });
const permanent = () =>
  Object.assign(new Error('One or more parameter values were invalid'), { name: 'ValidationException', $fault: 'client', $metadata: { httpStatusCode: 400 } });

/** Short, so the test is quick; long enough that no other request of this file comes near it on a busy machine. */
const HANDLER_TIMEOUT_MS = 1_500;
const faults = {
  /** Every claim waits this long first (a handler stalled past its budget). */
  claimDelayMs: 0,
  keyLookup: undefined as (() => Error) | undefined,
  projectsList: undefined as (() => Error) | undefined,
};

function faulty(deps: Deps): Deps {
  return {
    ...deps,
    ledger: {
      claim: async (...args) => {
        if (faults.claimDelayMs) await new Promise((r) => setTimeout(r, faults.claimDelayMs));
        return deps.ledger.claim(...args);
      },
      release: (...args) => deps.ledger.release(...args),
      markStored: (...args) => deps.ledger.markStored(...args),
    },
    keys: {
      findByHash: (hash) => (faults.keyLookup ? Promise.reject(faults.keyLookup()) : deps.keys.findByHash(hash)),
      create: (k) => deps.keys.create(k),
      listByProject: (p) => deps.keys.listByProject(p),
      relabel: (p, k, l) => deps.keys.relabel(p, k, l),
      revoke: (p, k) => deps.keys.revoke(p, k),
    },
    projects: {
      list: () => (faults.projectsList ? Promise.reject(faults.projectsList()) : deps.projects.list()),
      create: (p) => deps.projects.create(p),
      get: (id) => deps.projects.get(id),
      update: (id, changes) => deps.projects.update(id, changes),
    },
  };
}

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('transient failures', { handlerTimeoutMs: HANDLER_TIMEOUT_MS, overrides: faulty }));
});
afterAll(() => stack.stop());
beforeEach(() => Object.assign(faults, { claimDelayMs: 0, keyLookup: undefined, projectsList: undefined }));

const stored = (name: string) => stack.rawEvents(project).filter((e) => e.name === name);

describe('transient failures answer 503 with Retry-After', () => {
  it.each(['/v1/events', '/api/events'])('%s: a handler past its time budget answers 503 (Retry-After 5); the retried batch is stored once', async (path) => {
    const name = `slow-${path}`;
    faults.claimDelayMs = HANDLER_TIMEOUT_MS * 2;
    const res = await stack.post(path, key, { events: [{ name, user_id: 'u1', timestamp: 1767225600 }] });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(JSON.stringify(res.json)).toMatch(/did not finish in time.*retry/);

    // The timed-out request goes on in the background (as a Lambda's would on its next invocation) and
    // holds its claim until it stores; the client's retries get 503 until then, and then 204.
    faults.claimDelayMs = 0;
    let retry = await stack.post(path, key, { events: [{ name, user_id: 'u1', timestamp: 1767225600 }] });
    for (let i = 0; retry.status === 503 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      retry = await stack.post(path, key, { events: [{ name, user_id: 'u1', timestamp: 1767225600 }] });
    }
    expect(retry.status).toBe(path === '/v1/events' ? 204 : 200);
    expect(stored(name)).toHaveLength(1);
  });

  it('a TimeoutError from a store that the handler does not catch answers 503 (Retry-After 1), not 500', async () => {
    faults.projectsList = awsTimeout;
    const res = await stack.admin('GET', '/admin/v1/projects');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toEqual({ error: 'Service temporarily unavailable; retry the request' });
  });

  it('a permanent store failure stays 500, without Retry-After', async () => {
    faults.projectsList = permanent;
    const res = await stack.admin('GET', '/admin/v1/projects');
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it.each(['/v1/events', '/api/events'])('%s: a failed key lookup answers 503 (Retry-After 1), as API Gateway does when the authorizer fails', async (path) => {
    faults.keyLookup = awsTimeout;
    const res = await stack.post(path, key, { events: [{ name: 'key-lookup' }] });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.json.error).toBe('Service temporarily unavailable; retry the request');
    faults.keyLookup = undefined;
    expect((await stack.post(path, key, { events: [{ name: 'key-lookup' }] })).status).toBeLessThan(300);
  });
});
