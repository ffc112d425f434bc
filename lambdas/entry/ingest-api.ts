import { createIngestHandler } from '../handlers/ingest';
import { awsDeps } from './aws';

export const handler = createIngestHandler('api', awsDeps(['ledger', 'sink', 'identities', 'identitySink']));
