/** POST /v1/events and POST /api/events: one handler factory, two response shapes. */
import { parseBatch, toReceivedEvent, uniqueByDedupeKey, withCanonicalUser, type CanonicalIds, type IngestSurface } from '../domain/event';
import type { GeoLookup } from '../domain/geo';
import { requestGeo } from '../domain/client-geo';
import { ApiError, internalError, invalidPayload, tooLarge, unavailable, VALIDATION_FAILED } from '../http/api-error';
import { parseJsonBody } from '../http/body';
import { metadataHeader } from '../contract/client-headers';
import { empty, header, json, type HttpEvent } from '../http/event';
import { principalOf } from '../http/principal';
import { countForAccessLog, wrap } from '../http/wrap';
import { resolveIdentities, screenSuppressed, type IdentityDeps } from '../services/resolve-identities';
import { storeEvents, StoreEventsError } from '../services/store-events';
import type { EventLedger, RawEventStream } from '../ports';
import { errorFields, log } from '../logging/log';
import { referencedExperiments } from '../domain/experiment';
import { isTransient } from '../domain/transient-error';
import { RETRY_AFTER_SECONDS } from '../domain/retry-after';
import type { ExperimentCatalog } from '../services/experiment-catalog';
import type { StoredEvent } from '../domain/event';

export interface IngestDeps extends IdentityDeps {
  /** For the soft check of experiment names in exposures; absent, the check is skipped. */
  catalog?: ExperimentCatalog;
  ledger: EventLedger;
  sink: RawEventStream;
  geo: GeoLookup;
  clock: () => number;
}

export function createIngestHandler(source: IngestSurface, deps: IngestDeps) {
  return wrap(
    async (event: HttpEvent) => {
      const { project_id } = principalOf(event);
      const receivedMs = deps.clock();
      const batch = parseBatch(await parseJsonBody(event));
      if (!batch.ok) {
        if (batch.kind === 'payload') throw invalidPayload(batch.error);
        if (batch.kind === 'too_many') throw tooLarge(batch.error);
        throw new ApiError(400, VALIDATION_FAILED, { details: batch.details });
      }
      countForAccessLog(event, { events: batch.events.length });
      const lookup = (name: string) => header(event, name);
      const facts = {
        projectId: project_id,
        receivedMs,
        source,
        sdk: metadataHeader(lookup, 'sdk') ?? null,
        sdkVersion: metadataHeader(lookup, 'sdkVersion') ?? null,
        // Once per request, not per event.
        geo: requestGeo(
          {
            sourceIp: event.requestContext?.identity?.sourceIp,
            viaCloudFront: (event.requestContext?.authorizer as Record<string, unknown> | null)?.via_cloudfront === '1',
            header: (name) => header(event, name),
          },
          deps.geo,
        ),
      };
      let received = uniqueByDedupeKey(batch.events.map((e) => toReceivedEvent(e, facts)));
      let canonical: CanonicalIds;
      try {
        // Events of suppressed IDs (a deletion with suppress) are accepted and dropped here.
        const screened = await screenSuppressed(project_id, received, deps);
        received = screened.kept;
        if (screened.dropped > 0) countForAccessLog(event, { suppressed: screened.dropped });
        canonical = await resolveIdentities(project_id, received, deps, receivedMs, screened.seen);
      } catch (err) {
        log('error', 'identity resolution failed', { request_id: event.requestContext.requestId, transient: isTransient(err), ...errorFields(err) });
        if (!isTransient(err)) throw internalError();
        throw unavailable('Identity links are temporarily unavailable; retry the same batch (it is safe)');
      }
      const events = received.map((e) => withCanonicalUser(e, canonical));
      try {
        await storeEvents(events, deps, { owner: event.requestContext.requestId, nowMs: receivedMs });
      } catch (err) {
        if (!(err instanceof StoreEventsError)) throw err;
        if (!err.transient) throw internalError();
        throw err.reason === 'in_flight'
          ? unavailable(`${err.message}; retry the same batch in a few seconds (it is safe)`, RETRY_AFTER_SECONDS.inFlight)
          : unavailable(`${err.message}; retry the same batch (it is safe: stored events are deduplicated)`);
      }
      await warnUnknownExperiments(project_id, events, deps.catalog);
      return source === 'v1' ? empty(204) : json(200, { success: true, events_received: batch.events.length });
    },
    { route: source === 'v1' ? 'ingest-v1' : 'ingest-api', surface: source },
  );
}

/**
 * Exposures and super properties naming no experiment of the project are stored anyway (an SDK may
 * know an experiment before the dashboard does); the check only leaves a warning for operators.
 */
async function warnUnknownExperiments(projectId: string, events: StoredEvent[], catalog: ExperimentCatalog | undefined) {
  const named = new Set(events.flatMap((e) => referencedExperiments(e.name, e.properties)));
  if (!catalog || named.size === 0) return;
  try {
    const known = await catalog.knownNames(projectId);
    const unknown = [...named].filter((n) => !known.has(n));
    // A count, never the names: they come from event properties, and clients put anything there
    // (an e-mail address as an experiment name has been seen).
    if (unknown.length > 0) log('warn', 'events name unknown experiments', { project_id: projectId, unknown_experiments: unknown.length });
  } catch (err) {
    log('warn', 'experiment name check skipped', errorFields(err));
  }
}
