/** POST /v1/events and POST /api/events: one handler factory, two response shapes. */
import { parseBatch, toStoredEvent, uniqueByDedupeKey, type IngestSource } from '../domain/event';
import type { GeoLookup } from '../domain/geo';
import { ApiError, invalidPayload, tooLarge, unavailable, VALIDATION_FAILED } from '../http/api-error';
import { parseJsonBody } from '../http/body';
import { empty, header, json, type HttpEvent } from '../http/event';
import { principalOf } from '../http/principal';
import { wrap } from '../http/wrap';
import { storeEvents, StoreEventsError } from '../services/store-events';
import type { EventLedger, EventSink } from '../store/ports';

export interface IngestDeps {
  ledger: EventLedger;
  sink: EventSink;
  geo: GeoLookup;
  clock: () => number;
}

export function createIngestHandler(source: IngestSource, deps: IngestDeps) {
  return wrap(
    async (event: HttpEvent) => {
      const { project_id } = principalOf(event);
      const receivedMs = deps.clock();
      const batch = parseBatch(parseJsonBody(event));
      if (!batch.ok) {
        if (batch.kind === 'payload') throw invalidPayload(batch.error);
        if (batch.kind === 'too_many') throw tooLarge(batch.error);
        throw new ApiError(400, VALIDATION_FAILED, { details: batch.details });
      }
      const facts = {
        projectId: project_id,
        receivedMs,
        source,
        sdk: header(event, 'x-tally-sdk') ?? null,
        sdkVersion: header(event, 'x-tally-sdk-version') ?? null,
        geo: deps.geo.lookup(event.requestContext?.identity?.sourceIp),
      };
      const events = uniqueByDedupeKey(batch.events.map((e) => toStoredEvent(e, facts)));
      try {
        await storeEvents(events, deps, { owner: event.requestContext.requestId, nowMs: receivedMs });
      } catch (err) {
        if (!(err instanceof StoreEventsError)) throw err;
        throw err.reason === 'in_flight'
          ? unavailable(`${err.message}; retry the same batch in a few seconds (it is safe)`, 5)
          : unavailable(`${err.message}; retry the same batch (it is safe: stored events are deduplicated)`);
      }
      return source === 'v1' ? empty(204) : json(200, { success: true, events_received: batch.events.length });
    },
    { route: source === 'v1' ? 'ingest-v1' : 'ingest-api', surface: source },
  );
}
