/**
 * Faults part-way through storing a batch: the request fails with a 5xx, nothing acknowledged is
 * lost, and a retry of the same batch stores every event exactly once.
 * The DynamoDB faults wrap the real dynalite-backed ledger; the raw event stream faults are injected into the
 * local Firehose endpoint, so the real Firehose client code path runs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventLedger } from '../../lambdas/ports';
import { CLAIM_LEASE_MS } from '../../lambdas/store/event-ledger';
import { startTestProject, type TestStack } from '../helpers/local';

/** Knobs the tests turn; the wrapped ledger consults them on every call. */
const faults = {
  failClaimNumber: 0,
  failClaimWith: undefined as Error | undefined,
  /** The failing claim is written before its error: a response lost after a successful write. */
  failClaimAfterWrite: false,
  failRelease: false,
  failMarkStored: false,
};
let claims = 0;
let now = Date.UTC(2026, 5, 1);

function faultyLedger(real: EventLedger): EventLedger {
  return {
    claim: (...args) => {
      claims++;
      if (claims === faults.failClaimNumber) {
        const error =
          faults.failClaimWith ?? Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' });
        if (faults.failClaimAfterWrite) return real.claim(...args).then(() => Promise.reject(error));
        return Promise.reject(
          faults.failClaimWith ?? Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' }),
        );
      }
      return real.claim(...args);
    },
    release: (...args) => (faults.failRelease ? Promise.reject(new Error('release failed')) : real.release(...args)),
    markStored: (...args) => (faults.failMarkStored ? Promise.reject(new Error('mark failed')) : real.markStored(...args)),
  };
}

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('faults', { clock: () => now, overrides: (deps) => ({ ...deps, ledger: faultyLedger(deps.ledger) }) }));
});
afterAll(() => stack.stop());
beforeEach(() => {
  Object.assign(faults, { failClaimNumber: 0, failClaimWith: undefined, failClaimAfterWrite: false, failRelease: false, failMarkStored: false });
  stack.firehose.faults.length = 0;
  stack.firehose.down = false;
  claims = 0;
});

const batch = (name: string, n = 20) => ({ events: Array.from({ length: n }, (_, i) => ({ name, user_id: `u${i}`, timestamp: 1767225600 + i })) });
const stored = (name: string) => stack.rawEvents(project).filter((e) => e.name === name);

describe('storage faults', () => {
  it('a DynamoDB error mid-batch fails the request with 503; the retry stores every event exactly once', async () => {
    faults.failClaimNumber = 7;
    const first = await stack.post('/v1/events', key, batch('ddb-fault'));
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('1');
    expect(first.json.error).toMatch(/retry the same batch/);
    expect(stored('ddb-fault').length).toBe(19); // the other events were stored, and are acknowledged by no one yet

    faults.failClaimNumber = 0;
    expect((await stack.post('/v1/events', key, batch('ddb-fault'))).status).toBe(204);
    const names = stored('ddb-fault')
      .map((e) => e.user_id)
      .sort();
    expect(names).toEqual(
      batch('ddb-fault')
        .events.map((e) => e.user_id)
        .sort(),
    );
  });

  it('a claim written but reported failed (a lost response) is not marked stored: the retry stores every event exactly once', async () => {
    faults.failClaimNumber = 7;
    faults.failClaimAfterWrite = true;
    const first = await stack.post('/v1/events', key, batch('lost-claim-response'));
    expect(first.status).toBe(503);
    expect(stored('lost-claim-response').length).toBe(19);

    faults.failClaimNumber = 0;
    expect((await stack.post('/v1/events', key, batch('lost-claim-response'))).status).toBe(204);
    const names = stored('lost-claim-response')
      .map((e) => e.user_id)
      .sort();
    expect(names).toEqual(
      batch('lost-claim-response')
        .events.map((e) => e.user_id)
        .sort(),
    );
  });

  it('when releasing an unsure claim fails, no commit is written: the retry after the lease stores the rest, nothing is lost', async () => {
    faults.failClaimNumber = 3;
    faults.failClaimAfterWrite = true;
    faults.failRelease = true;
    expect((await stack.post('/v1/events', key, batch('unsure-claim', 5))).status).toBe(503);
    Object.assign(faults, { failClaimNumber: 0, failRelease: false });
    now += CLAIM_LEASE_MS + 1;
    expect((await stack.post('/v1/events', key, batch('unsure-claim', 5))).status).toBe(204);
    expect(new Set(stored('unsure-claim').map((e) => e.user_id))).toEqual(new Set(batch('unsure-claim', 5).events.map((e) => e.user_id)));
  });

  it('a raw event stream failure stores nothing and releases the claims; the retry stores every event once', async () => {
    stack.firehose.down = true;
    const first = await stack.post('/api/events', key, batch('stream-fault'));
    stack.firehose.down = false;
    expect(first.status).toBe(503);
    expect(first.json).toEqual({ success: false, error: expect.stringMatching(/event stream is unavailable/) });
    expect(stored('stream-fault')).toHaveLength(0);

    const retry = await stack.post('/api/events', key, batch('stream-fault'));
    expect(retry.json).toEqual({ success: true, events_received: 20 });
    expect(stored('stream-fault')).toHaveLength(20);
    expect((await stack.post('/api/events', key, batch('stream-fault'))).status).toBe(200);
    expect(stored('stream-fault')).toHaveLength(20);
  });

  it('a transient per-record raw event stream rejection is retried inside the request', async () => {
    stack.firehose.faults.push('reject-records');
    expect((await stack.post('/v1/events', key, batch('partial'))).status).toBe(204);
    expect(stored('partial')).toHaveLength(20);
  });

  it('when the raw event stream and the release both fail, a retry is told to wait, and stores once the lease ends', async () => {
    stack.firehose.down = true;
    faults.failRelease = true;
    expect((await stack.post('/v1/events', key, batch('double-fault', 5))).status).toBe(503);
    faults.failRelease = false;
    stack.firehose.down = false;

    const early = await stack.post('/v1/events', key, batch('double-fault', 5));
    expect(early.status).toBe(503);
    expect(early.json.error).toMatch(/being stored by another request/);
    expect(stored('double-fault')).toHaveLength(0);

    now += CLAIM_LEASE_MS + 1;
    expect((await stack.post('/v1/events', key, batch('double-fault', 5))).status).toBe(204);
    expect(stored('double-fault')).toHaveLength(5);
  });

  it('if marking events stored fails after the raw event stream accepted them, the request still succeeds: they are stored', async () => {
    faults.failMarkStored = true;
    expect((await stack.post('/v1/events', key, batch('mark-fault', 3))).status).toBe(204);
    expect(stored('mark-fault')).toHaveLength(3);
  });

  it('a resend after the lease of a batch whose commit failed is stored again, and still listed once: the copy received first', async () => {
    faults.failMarkStored = true;
    expect((await stack.post('/v1/events', key, batch('uncommitted', 3))).status).toBe(204);
    faults.failMarkStored = false;
    const firstReceived = now;
    now += CLAIM_LEASE_MS + 1;
    expect((await stack.post('/v1/events', key, batch('uncommitted', 3))).status).toBe(204);
    expect(stored('uncommitted')).toHaveLength(6);
    const listed = await stack.admin('GET', `/admin/v1/projects/${project}/events?name=uncommitted`);
    expect(listed.status).toBe(200);
    expect(listed.body.events.map((e: { user_id: string }) => e.user_id).sort()).toEqual(['u0', 'u1', 'u2']);
    expect(new Set(listed.body.events.map((e: { received_at: string }) => e.received_at))).toEqual(new Set([new Date(firstReceived).toISOString()]));
    // The user listing (the dashboard's Users page asks per ID) shows it once too.
    expect((await stack.admin('GET', `/admin/v1/projects/${project}/events?user_id=u1&name=uncommitted`)).body.events).toHaveLength(1);
  });

  it('duplicates sent at the same moment by two requests are stored once, and neither is acknowledged before it is stored', async () => {
    const results = await Promise.all([1, 2, 3].map(() => stack.post('/v1/events', key, batch('race', 10))));
    for (const r of results) expect([204, 503]).toContain(r.status);
    expect(results.some((r) => r.status === 204)).toBe(true);
    // Whoever got 503 retries, as the spec tells SDKs to; the retry dedupes.
    for (const r of results) if (r.status === 503) expect((await stack.post('/v1/events', key, batch('race', 10))).status).toBe(204);
    expect(stored('race')).toHaveLength(10);
  });

  it('a permanent storage error (DynamoDB ValidationException) gets 500, never the retry-me 503', async () => {
    // The shape the AWS SDK gives a ValidationException: a client fault, HTTP 400, not retryable.
    faults.failClaimNumber = 2;
    faults.failClaimWith = Object.assign(
      new Error('One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of 2048 bytes'),
      {
        name: 'ValidationException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400 },
      },
    );
    for (const path of ['/v1/events', '/api/events']) {
      claims = 0;
      const res = await stack.post(path, key, batch(`permanent-${path}`, 3));
      expect(res.status).toBe(500);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(res.text).not.toMatch(/retry/i);
    }
  });
});
