import { createIngestHandler } from '../handlers/ingest';
import { ExperimentCatalog } from '../services/experiment-catalog';
import { awsDeps } from './aws';

const deps = awsDeps(['ledger', 'sink', 'identities', 'identitySink', 'experiments', 'experimentsCacheMs']);
export const handler = createIngestHandler('api', { ...deps, catalog: new ExperimentCatalog(deps.experiments, deps.experimentsCacheMs) });
