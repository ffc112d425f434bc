/**
 * The local stack: dynalite, the local Firehose endpoint and an HTTP server that turns requests into
 * API Gateway proxy events for the same handlers the Lambdas run. It also does what API Gateway does
 * on AWS: the key authorizer, per-key rate limits (usage plans), CORS preflight and the gateway's
 * own error responses, with the same functions and response shapes.
 */
import { FirehoseClient } from '@aws-sdk/client-firehose';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Deps } from '../deps';
import type { GeoLookup } from '../domain/geo';
import { LIMITS } from '../domain/limits';
import { TokenBuckets } from '../domain/rate-limit';
import { preflightHeaders, corsHeaders } from '../http/cors';
import { metadataHeader, presentedApiKey } from '../http/client-headers';
import { header, json, type HttpEvent } from '../http/event';
import { ApiError } from '../http/api-error';
import { requireAdmin } from '../http/admin-auth';
import { errorFields, log } from '../http/log';
import { errorBody, surfaceOf, throttledBody } from '../http/surface';
import type { HttpHandler } from '../http/wrap';
import { createHandlers } from '../handlers/registry';
import { openApiDocument } from '../openapi';
import { ROUTES } from '../routes';
import { authorizeKey, authorizerContext } from '../services/authorize';
import { DynamoApiKeyStore } from '../store/api-key-store';
import { documentClient } from '../store/dynamo-client';
import { DynamoEventLedger } from '../store/event-ledger';
import { FirehoseSink } from '../store/firehose-sink';
import { DynamoProjectStore } from '../store/project-store';
import { DynamoIdentityStore } from '../store/identity-store';
import { DynamoExperimentStore } from '../store/experiment-store';
import { DynamoAssignmentStore } from '../store/assignment-store';
import { DynamoResultsStore } from '../store/results-store';
import { DuckDbResultsQuery } from '../store/duckdb-results-query';
import { runResultsJob } from '../services/compute-results';
import { NO_GEO } from '../store/geo-mmdb';
import { NO_RATE_LIMIT_REGISTRY } from '../store/ports';
import { TABLES } from '../store/schema';
import { lockDataDir } from './data-dir';
import { serveExample } from './example-page';
import { ensureTables, LOCAL_CREDENTIALS, LOCAL_REGION, localTableName, startDynalite } from './dynalite';
import { startLocalFirehose, type LocalFirehose } from './firehose-endpoint';
import { clientIp, lambdaContext, matchRoute, toGatewayEvent, writeResult } from './gateway-event';
import { answerUnread, DEFAULT_REQUEST_TIMEOUTS, readBody, type RequestTimeouts } from './request-body';

export const LOCAL_STREAMS = { events: 'tally-events', identities: 'tally-identities' } as const;
/** Handlers get the same time budget locally as their Lambda timeout on AWS. */
const HANDLER_TIMEOUT_MS = 10_000;

export interface LocalServerOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  dataDir: string;
  /** Keep DynamoDB in memory instead of under dataDir (tests). Raw event files are still written. */
  inMemoryDynamo?: boolean;
  adminToken: string;
  trustProxy?: boolean;
  geo?: GeoLookup;
  clock?: () => number;
  /** Results job interval; 0 (the default here) runs it only on refresh. npm start uses 60 s. */
  resultsIntervalMs?: number;
  /** How long a request may take to arrive (README "Limits"); tests shorten them. */
  timeouts?: RequestTimeouts;
  /** Replace parts of the wiring (fault injection in tests). */
  overrides?: (deps: Deps) => Deps;
}

export interface LocalServer {
  url: string;
  deps: Deps;
  firehose: LocalFirehose;
  eventsDir: string;
  identitiesDir: string;
  close(): Promise<void>;
}

export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const unlock = options.inMemoryDynamo ? () => undefined : lockDataDir(options.dataDir);
  const dynamo = await startDynalite(options.inMemoryDynamo ? undefined : join(options.dataDir, 'dynamodb'));
  await ensureTables(dynamo.endpoint);
  const eventsDir = join(options.dataDir, 'events');
  const identitiesDir = join(options.dataDir, 'identities');
  const firehose = await startLocalFirehose({ [LOCAL_STREAMS.events]: eventsDir, [LOCAL_STREAMS.identities]: identitiesDir });

  const awsLocal = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const ddb = documentClient({ ...awsLocal, endpoint: dynamo.endpoint });
  const firehoseClient = new FirehoseClient({ ...awsLocal, endpoint: firehose.endpoint });
  const baseDeps: Deps = {
    projects: new DynamoProjectStore(ddb, localTableName(TABLES.projects)),
    keys: new DynamoApiKeyStore(ddb, localTableName(TABLES.api_keys)),
    rateLimits: NO_RATE_LIMIT_REGISTRY,
    ledger: new DynamoEventLedger(ddb, localTableName(TABLES.events)),
    sink: new FirehoseSink(firehoseClient, LOCAL_STREAMS.events),
    identities: new DynamoIdentityStore(ddb, localTableName(TABLES.identities)),
    identitySink: new FirehoseSink(firehoseClient, LOCAL_STREAMS.identities),
    experiments: new DynamoExperimentStore(ddb, localTableName(TABLES.experiments)),
    assignments: new DynamoAssignmentStore(ddb, localTableName(TABLES.assignments)),
    experimentsCacheMs: 0,
    results: new DynamoResultsStore(ddb, localTableName(TABLES.results)),
    // Athena's local stand-in: DuckDB over the same NDJSON files the local Firehose endpoint writes.
    resultsQuery: new DuckDbResultsQuery(options.dataDir),
    geo: options.geo ?? NO_GEO,
    clock: options.clock ?? Date.now,
    adminToken: async () => options.adminToken,
  };
  const deps = options.overrides ? options.overrides(baseDeps) : baseDeps;
  const handlers = createHandlers(deps);
  const buckets = new TokenBuckets();

  const timeouts = options.timeouts ?? DEFAULT_REQUEST_TIMEOUTS;
  const checkAdmin = requireAdmin(deps.adminToken);
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      // Node's backstop for the whole request; the body has its own, tighter deadline (readBody).
      requestTimeout: timeouts.headersMs + timeouts.bodyMs + 5_000,
      // How often Node checks those two deadlines (default 30 s, which would stretch them).
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
    },
    (req, res) => {
      serve(req, res).catch((err: unknown) => {
        log('error', 'local server failure', errorFields(err));
        if (!res.headersSent) answerUnread(req, res, json(500, { error: 'Internal server error' }), timeouts);
        else res.destroy();
      });
    },
  );

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://local');
    if (await serveExample(req, res, url.pathname)) return;
    if (req.method === 'GET' && url.pathname === '/openapi.json') return writeResult(res, json(200, openApiDocument()));
    const surface = surfaceOf(url.pathname);
    const origin = req.headers.origin;
    // Every early answer leaves the body unread: answerUnread lets the client finish sending it.
    const fail = (status: number, error: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}, close = false) =>
      answerUnread(req, res, json(status, errorBody(surface, error, extra), { ...corsHeaders(origin), ...headers }), timeouts, { close });

    const matched = matchRoute(ROUTES, req.method ?? 'GET', url.pathname);
    if (req.method === 'OPTIONS' && matched !== undefined && surface !== 'admin') {
      req.resume();
      const requested = header({ headers: req.headers as Record<string, string> }, 'access-control-request-headers');
      return writeResult(res, { statusCode: 204, headers: preflightHeaders(origin, requested), body: '' });
    }
    if (matched === undefined) return fail(404, `No route ${req.method} ${url.pathname}; see the README for the API`);
    if (matched === 'method') return fail(405, `Method ${req.method} is not allowed on ${url.pathname}`);

    // Authentication comes from the headers alone: an unauthenticated request never has its body read.
    let authorizer: Record<string, string> | null = null;
    if (matched.route.auth === 'api-key') {
      const lookup = (name: string) => header({ headers: req.headers as Record<string, string> }, name);
      const decision = await authorizeKey(deps.keys, {
        key: presentedApiKey(lookup),
        origin,
        bundleId: metadataHeader(lookup, 'bundleId'),
      });
      if (!decision.allow) return fail(decision.status, decision.error);
      const rate = buckets.take(decision.key.id, decision.key.rate_limit_per_minute, deps.clock());
      if (!rate.allowed) {
        const seconds = rate.retryAfterSeconds;
        return answerUnread(req, res, json(429, throttledBody(seconds), { ...corsHeaders(origin), 'Retry-After': String(seconds) }), timeouts, { close: false });
      }
      authorizer = authorizerContext(decision.key);
    } else {
      try {
        await checkAdmin({ headers: req.headers } as unknown as HttpEvent);
      } catch (err) {
        if (err instanceof ApiError) return fail(err.status, err.error);
        throw err;
      }
    }

    const body = await readBody(req, LIMITS.maxBodyBytes, timeouts.bodyMs);
    if (body === 'aborted') return void req.socket.destroy();
    if (body === 'too_slow') {
      return fail(408, `The request body did not arrive within ${timeouts.bodyMs / 1000} s; send it at once`, {}, {}, true);
    }
    if (body === 'too_large') {
      return fail(413, `Request body is larger than ${LIMITS.maxBodyBytes} bytes (1 MiB). Send smaller batches.`);
    }

    const event = toGatewayEvent(req, url, body, matched, clientIp(req, options.trustProxy ?? false), authorizer);
    const handler = handlers[matched.route.name as keyof typeof handlers] as HttpHandler;
    const result = await handler(event, lambdaContext(matched.route, event.requestContext.requestId, HANDLER_TIMEOUT_MS));
    writeResult(res, result);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';

  // The local stand-in for the EventBridge schedule; runs never overlap.
  let job: Promise<unknown> | undefined;
  const timer = options.resultsIntervalMs
    ? setInterval(() => {
        job ??= runResultsJob(deps)
          .catch((err: unknown) => log('error', 'results job failed', errorFields(err)))
          .finally(() => (job = undefined));
      }, options.resultsIntervalMs)
    : undefined;
  timer?.unref();

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    deps,
    firehose,
    eventsDir,
    identitiesDir,
    close: () =>
      (closing ??= (async () => {
        clearInterval(timer);
        await closeServer(server);
        await job;
        await firehose.close();
        await deps.resultsQuery.close?.();
        ddb.destroy();
        firehoseClient.destroy();
        await dynamo.close();
        unlock();
      })()),
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // In-flight requests finish; idle keep-alive sockets would otherwise hold close() open.
    server.closeIdleConnections();
  });
}
