/**
 * The ingestion handler with its storage and identity stubbed out: what both benchmarks time as the
 * handler's own CPU work (gunzip, parse, validate, enrich), with every call to storage answered at once.
 */
import { UNKNOWN_GEO } from '../../lambdas/domain/geo';
import { createIngestHandler } from '../../lambdas/handlers/ingest';

export function stubbedIngestHandler() {
  return createIngestHandler('v1', {
    ledger: { claim: async () => 'claimed', release: async () => undefined, markStored: async () => undefined },
    sink: { put: async () => undefined },
    identities: {
      observe: async (_p, ids) => new Map(ids.map((id) => [id, id])),
      link: async (_p, a) => ({ canonical: a, moved: [] }),
      group: async () => undefined,
      updateProfile: async () => undefined,
      screen: async () => ({ suppressed: new Set(), seen: new Map() }),
      suppress: async () => undefined,
    },
    identitySink: { put: async () => undefined },
    geo: { lookup: () => UNKNOWN_GEO },
    clock: Date.now,
  });
}
