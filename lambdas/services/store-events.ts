/**
 * Storing a validated batch: claim each event in the ledger, write the claimed ones to the raw
 * stream, then write the request's commit (one item, which marks all its claims stored). The order
 * makes the guarantees:
 *  - nothing acknowledged is lost: success is reported only after the raw stream accepted every
 *    event this request claimed, and only if no claim failed or was still in flight elsewhere;
 *  - nothing is deduplicated that was not stored: a claim counts as stored only once its request's
 *    commit exists, written after the stream write; and claims of a failed write are released (or expire) so a retry stores them.
 */
import type { StoredEvent } from '../domain/event';
import { mapLimit } from '../domain/concurrency';
import { isTransient } from '../domain/transient-error';
import { errorFields, log } from '../logging/log';
import type { ClaimOutcome, EventLedger, RawEventStream } from '../ports';

/** Parallel conditional writes per request: enough to hide latency, few enough not to throttle. */
const CLAIM_CONCURRENCY = 16;

export interface StoreEventsResult {
  stored: number;
  duplicates: number;
}

export class StoreEventsError extends Error {
  constructor(
    readonly reason: 'ledger' | 'raw_stream' | 'in_flight',
    message: string,
    /** Whether retrying the same batch may succeed: only then is the client told to retry (503). */
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'StoreEventsError';
  }
}

export async function storeEvents(
  events: StoredEvent[],
  deps: { ledger: EventLedger; sink: RawEventStream },
  request: { owner: string; nowMs: number },
): Promise<StoreEventsResult> {
  const outcomes = await mapLimit(events, CLAIM_CONCURRENCY, (e) =>
    deps.ledger.claim(e.project_id, e.dedupe_key, request.owner, request.nowMs).then(
      (outcome): ClaimOutcome | Error => outcome,
      (err: unknown) => err as Error,
    ),
  );
  const claimed = events.filter((_, i) => outcomes[i] === 'claimed');
  const commit = await releaseUnsureClaims(events, outcomes, deps.ledger, request.owner);

  if (claimed.length > 0) {
    try {
      await deps.sink.put(claimed);
    } catch (err) {
      log('error', 'raw stream write failed; releasing claims', { owner: request.owner, events: claimed.length, ...errorFields(err) });
      await deps.ledger
        .release(
          claimed[0]!.project_id,
          claimed.map((e) => e.dedupe_key),
          request.owner,
        )
        .catch((releaseErr) =>
          // The claims now expire with their lease (CLAIM_LEASE_MS); a retry after that stores them.
          log('error', 'releasing claims failed', { owner: request.owner, ...errorFields(releaseErr) }),
        );
      throw new StoreEventsError('raw_stream', 'The event stream is unavailable', isTransient(err));
    }
    // Without a commit (an unsure claim could not be released), every claim of this request expires
    // with its lease and a later retry stores its events again: at-least-once, never lost.
    if (commit) {
      try {
        await deps.ledger.markStored(request.owner, request.nowMs);
      } catch (err) {
        // The events are in the raw stream, so the request succeeded. Their claims have no commit; a
        // duplicate arriving after the lease would be stored again (at-least-once, never lost).
        log('warn', 'marking events stored failed', { owner: request.owner, events: claimed.length, ...errorFields(err) });
      }
    }
  }

  const failures = outcomes.filter((o): o is Error => o instanceof Error);
  if (failures.length > 0) {
    log('error', 'event ledger write failed', { owner: request.owner, failed: failures.length, stored: claimed.length, ...errorFields(failures[0]) });
    // One permanent failure fails every retry the same way.
    throw new StoreEventsError(
      'ledger',
      'The event ledger is unavailable',
      failures.every((f) => isTransient(f)),
    );
  }
  if (outcomes.includes('in_flight')) {
    throw new StoreEventsError('in_flight', 'Some events of this batch are being stored by another request', true);
  }
  return { stored: claimed.length, duplicates: events.length - claimed.length };
}

/**
 * A claim whose write failed may still have been written (its answer lost after DynamoDB applied it):
 * it would carry this request as owner, and the commit would then mark its event stored although the
 * event never reached the raw stream. Such claims are released (deleted only if they are this
 * request's) before any commit. Returns whether the commit may be written: not when that release fails.
 */
async function releaseUnsureClaims(events: StoredEvent[], outcomes: Array<ClaimOutcome | Error>, ledger: EventLedger, owner: string): Promise<boolean> {
  const unsure = events.filter((_, i) => outcomes[i] instanceof Error);
  if (unsure.length === 0) return true;
  try {
    await ledger.release(
      unsure[0]!.project_id,
      unsure.map((e) => e.dedupe_key),
      owner,
    );
    return true;
  } catch (err) {
    log('error', 'releasing unsure claims failed; no commit for this request', { owner, events: unsure.length, ...errorFields(err) });
    return false;
  }
}
