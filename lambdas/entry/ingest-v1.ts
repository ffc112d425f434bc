import { createIngestHandler } from '../handlers/ingest';
import { lambdaHandler, withCatalog } from './aws';

export const handler = lambdaHandler('ingest-v1', (deps) => createIngestHandler('v1', withCatalog(deps)));
