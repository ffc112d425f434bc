import { createIngestHandler } from '../handlers/ingest';
import { awsDeps } from './aws';

export const handler = createIngestHandler('v1', awsDeps(['ledger', 'sink', 'identities', 'identitySink']));
