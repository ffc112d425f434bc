/** Everything a handler may depend on. Each handler factory asks for the subset it uses. */
import type { GeoLookup } from './domain/geo';
import type { ApiKeyStore, EventLedger, EventSink, IdentitySink, IdentityStore, ProjectStore, RateLimitRegistry } from './store/ports';

export interface Deps {
  projects: ProjectStore;
  keys: ApiKeyStore;
  rateLimits: RateLimitRegistry;
  ledger: EventLedger;
  sink: EventSink;
  identities: IdentityStore;
  identitySink: IdentitySink;
  geo: GeoLookup;
  clock: () => number;
  adminToken: () => Promise<string>;
}
