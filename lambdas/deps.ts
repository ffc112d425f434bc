/** Everything a handler may depend on. Each handler factory asks for the subset it uses. */
import type { GeoLookup } from './domain/geo';
import type { ApiKeyStore, EventLedger, EventSink, ProjectStore } from './store/ports';

export interface Deps {
  projects: ProjectStore;
  keys: ApiKeyStore;
  ledger: EventLedger;
  sink: EventSink;
  geo: GeoLookup;
  clock: () => number;
  adminToken: () => Promise<string>;
}
