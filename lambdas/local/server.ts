/**
 * The local stack: dynalite, the local Firehose endpoint and an HTTP server in front of the same
 * handlers the Lambdas run. This module starts and stops the pieces; the wiring is in wiring.ts, what
 * API Gateway does in api-gateway.ts, and the results job's schedule in results-scheduler.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Deps } from '../deps';
import type { GeoLookup } from '../domain/geo';
import { json } from '../http/event';
import { errorFields, log } from '../logging/log';
import { createHandlers } from '../handlers/registry';
import { documentClient } from '../store/dynamo-client';
import { firehoseClient } from '../store/firehose-client';
import { localGateway } from './api-gateway';
import { lockDataDir } from './data-dir';
import { ensureTables, startDynalite, LOCAL_AWS } from './dynalite';
import { startLocalFirehose, type LocalFirehose } from './firehose-endpoint';
import { answerUnread, DEFAULT_REQUEST_TIMEOUTS, type RequestTimeouts } from './request-body';
import { scheduleResultsJob } from './results-scheduler';
import { LOCAL_STREAMS, localDeps } from './wiring';

export { LOCAL_STREAMS };

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
  /** How long a request may take to arrive (docs/api.md, "Limits"); tests shorten them. */
  timeouts?: RequestTimeouts;
  /**
   * A handler's time budget, 10 s (the functions' timeout on AWS) unless set: a test whose one request
   * does a thousand DynamoDB writes raises it, so a busy machine cannot fail it on time alone.
   */
  handlerTimeoutMs?: number;
  /** The one origin admin responses allow (CORS), for a dashboard served elsewhere; unset, none. */
  dashboardOrigin?: string;
  /** Replace parts of the wiring (fault injection in tests). */
  overrides?: (deps: Deps) => Deps;
  /**
   * Puts something between the stores and dynalite (tests: a proxy that loses answers): given
   * dynalite's endpoint, returns the one the stores' client uses.
   */
  interposeDynamo?: (endpoint: string) => Promise<string>;
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

  const ddb = documentClient({ ...LOCAL_AWS, endpoint: options.interposeDynamo ? await options.interposeDynamo(dynamo.endpoint) : dynamo.endpoint });
  const firehoseSdk = firehoseClient({ ...LOCAL_AWS, endpoint: firehose.endpoint });
  const baseDeps = localDeps({
    ddb,
    firehoseClient: firehoseSdk,
    dataDir: options.dataDir,
    adminToken: options.adminToken,
    geo: options.geo,
    clock: options.clock,
    dashboardOrigin: options.dashboardOrigin,
  });
  const deps = options.overrides ? options.overrides(baseDeps) : baseDeps;
  const handlers = createHandlers(deps);

  const timeouts = options.timeouts ?? DEFAULT_REQUEST_TIMEOUTS;
  const serve = localGateway(deps, handlers, {
    timeouts,
    handlerTimeoutMs: options.handlerTimeoutMs,
    trustProxy: options.trustProxy ?? false,
    dataDir: options.dataDir,
  });
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

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';

  const scheduler = scheduleResultsJob(deps, options.resultsIntervalMs);

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    deps,
    firehose,
    eventsDir,
    identitiesDir,
    close: () =>
      (closing ??= (async () => {
        const schedulerStopped = scheduler.stop();
        await closeServer(server);
        await schedulerStopped;
        await firehose.close();
        await deps.resultsQuery.close?.();
        await deps.recentEvents.close?.();
        ddb.destroy();
        firehoseSdk.destroy();
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
