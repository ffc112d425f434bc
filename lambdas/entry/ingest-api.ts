import { createIngestHandler } from '../handlers/ingest';
import { lambdaHandler, withCatalog } from './aws';

export const handler = lambdaHandler('ingest-api', (deps) => createIngestHandler('api', withCatalog(deps)));
