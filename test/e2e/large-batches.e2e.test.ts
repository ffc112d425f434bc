/**
 * A backfill at the documented maximum batch (1,000 events, docs/api.md "Limits") over several
 * connections at once, through the local server: every batch answered 204 (no 5xx), every event
 * stored and listed once. Locally the large batches are stored one after the other, each with its own
 * time budget (lambdas/local/large-batch-lane.ts): before, four at once shared the one process and the
 * one dynalite thread, and all four ran out of their 10 s together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLedger } from '../../lambdas/ports';
import { LIMITS } from '../../lambdas/domain/limits';
import { startTestProject, type TestStack } from '../helpers/local';

/** Requests (claim owners) with a ledger claim in flight, and the most there ever were at once. */
const claiming = new Map<string, number>();
let mostRequestsClaimingAtOnce = 0;

/** The ledger, counting which requests claim at the same time. */
function observed(ledger: EventLedger): EventLedger {
  return {
    claim: async (projectId, dedupeKey, owner, nowMs) => {
      claiming.set(owner, (claiming.get(owner) ?? 0) + 1);
      mostRequestsClaimingAtOnce = Math.max(mostRequestsClaimingAtOnce, claiming.size);
      try {
        return await ledger.claim(projectId, dedupeKey, owner, nowMs);
      } finally {
        const left = claiming.get(owner)! - 1;
        if (left === 0) claiming.delete(owner);
        else claiming.set(owner, left);
      }
    },
    release: (projectId, keys, owner) => ledger.release(projectId, keys, owner),
    markStored: (owner, nowMs) => ledger.markStored(owner, nowMs),
  };
}

let stack: TestStack;
let project: string;
let key: string;
beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('backfill', { overrides: (deps) => ({ ...deps, ledger: observed(deps.ledger) }) }));
});
afterAll(() => stack.stop());

const BATCHES = 4;
const SIZE = LIMITS.maxEventsPerBatch;
/** Batch b's events: 250 users, 4 events each, a day of history. */
const events = (b: number) =>
  Array.from({ length: SIZE }, (_, i) => ({
    name: i % 4 === 0 ? 'page_view' : 'button_click',
    event_id: `backfill-${b}-${i}`,
    user_id: `backfill-user-${b}-${i % 250}`,
    timestamp: new Date(Date.UTC(2026, 2, 4) + (b * SIZE + i) * 20_000).toISOString(),
    properties: { path: '/pricing', step: i },
  }));

describe(`a backfill of ${BATCHES} batches of ${SIZE} events at once`, () => {
  it('answers every batch 204 and stores and lists every event once', async () => {
    const answers = await Promise.all(Array.from({ length: BATCHES }, (_, b) => stack.post('/v1/events', key, { events: events(b) }, { gzip: true })));
    expect(answers.map((a) => `${a.status} ${a.text}`)).toEqual(Array.from({ length: BATCHES }, () => '204 '));

    // The large batches were stored one at a time: never two requests claiming at once.
    expect(mostRequestsClaimingAtOnce).toBe(1);

    // Stored once each: the raw stream holds every event exactly once.
    const stored = stack.rawEvents(project).filter((e) => e.event_id?.startsWith('backfill-'));
    const copies = new Map<string, number>();
    for (const e of stored) copies.set(e.event_id!, (copies.get(e.event_id!) ?? 0) + 1);
    expect(copies.size).toBe(BATCHES * SIZE);
    expect([...copies.values()].every((n) => n === 1)).toBe(true);

    // Listed once: a user's events, each batch's first and last user.
    for (const user of ['backfill-user-0-0', `backfill-user-${BATCHES - 1}-249`]) {
      const listed = await stack.admin('GET', `/admin/v1/projects/${project}/events?user_id=${user}&limit=1000`);
      expect(listed.status).toBe(200);
      const ids = (listed.body.events as Array<{ event_id: string }>).map((e) => e.event_id);
      expect(ids).toHaveLength(SIZE / 250);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });
});
