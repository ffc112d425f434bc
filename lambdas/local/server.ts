/**
 * The local stack: dynalite, the local Firehose endpoint and an HTTP server in front of the same
 * handlers the Lambdas run. This module starts and stops the pieces; the wiring is in wiring.ts, what
 * API Gateway does in api-gateway.ts, and the results job's schedule in results-scheduler.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Deps } from '../deps';
import type { GeoLookup } from '../domain/geo';
import { json } from '../http/event';
import { errorFields, log } from '../logging/log';
import { createHandlers } from '../handlers/registry';
import { documentClient } from '../store/dynamo-client';
import { firehoseClient } from '../store/firehose-client';
import { ANALYST_VIEWS_FILE } from '../adapters/duckdb-analyst-views';
import { localGateway } from './api-gateway';
import { lockDataDir } from './data-dir';
import { ensureTables, startDynalite, LOCAL_AWS } from './dynalite';
import { startLocalFirehose, type LocalFirehose } from './firehose-endpoint';
import { answerUnread, DEFAULT_REQUEST_TIMEOUTS, type RequestTimeouts } from './request-body';
import { scheduleResultsJob } from './results-scheduler';
import { scheduleCompaction, type CompactionScheduler } from './compaction-scheduler';
import { addCuratedColumns } from './curated-columns';
import { moveLegacyLayout } from './legacy-layout';
import { DuckDbProcess } from './duckdb-process';
import { DuckDbCompactionStore } from '../adapters/duckdb-compaction';
import { keepEventsDaysProblem } from '../domain/event-retention';
import { DuckDbPersonRows } from '../adapters/duckdb-person-rows';
import { LOCAL_EXPORTS_PATH, type LocalExportFiles } from './export-files';
import type { OidcConfig } from '../adapters/oidc-verifier';
import { LOCAL_STREAMS, localDeps, localFirehoseTargets, localPersonRecords, localStreamDirs } from './wiring';
import type { ErasureOptions } from '../services/erase-people';

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
  /** Keep events this many days (TALLY_KEEP_EVENTS_DAYS, docs/decisions/retention.md); unset, forever. Checked here as at synth. */
  keepEventsDays?: number;
  /** Compaction job interval; 0 (the default here) runs it only at start and on compaction.runNow(). npm start uses 60 s. */
  compactionIntervalMs?: number;
  /** The event ledger's claim lease (TALLY_CLAIM_LEASE_SECONDS); default CLAIM_LEASE_MS, as on AWS. */
  claimLeaseMs?: number;
  /** How long a request may take to arrive (docs/api.md, "Limits"); tests shorten them. */
  timeouts?: RequestTimeouts;
  /**
   * A handler's time budget, 10 s (the functions' timeout on AWS) unless set: tests shorten it, and a test
   * whose one request does a thousand DynamoDB writes raises it, so a busy machine cannot fail it on time alone.
   */
  handlerTimeoutMs?: number;
  /** How long a large event batch may wait for the one before it (lambdas/local/large-batch-lane.ts); 19 s unless set. */
  largeBatchWaitMs?: number;
  /** The one origin admin responses allow (CORS), for a dashboard served elsewhere; unset, none. */
  dashboardOrigin?: string;
  /** People's sign-in (TALLY_OIDC_*): the OIDC issuer whose tokens the admin API accepts beside the admin token; unset, the token only. */
  oidc?: OidcConfig;
  /** Tests: called before each step of a person's deletion (services/erase-people.ts); a throw stops the run there. */
  deletionStepHook?: ErasureOptions['beforeStep'];
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
  /** The DuckDB script of the analyst views (events, identities, unique_events) over this data directory. */
  analystViews: string;
  /** The compaction job's schedule: runNow(nowMs) compacts every hour closed at nowMs (tests pass a later time). */
  compaction: CompactionScheduler;
  close(): Promise<void>;
}

export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const timeouts = options.timeouts ?? DEFAULT_REQUEST_TIMEOUTS;
  // The port first: a start that cannot listen (the port in use) fails before it creates anything
  // (the data directory, its lock, the tables). Requests arriving meanwhile wait for the rest.
  let serve: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  let setUp!: { resolve: () => void; reject: (err: unknown) => void };
  const ready = new Promise<void>((resolve, reject) => (setUp = { resolve, reject }));
  ready.catch(() => undefined);
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      // Node's backstop for the whole request; the body has its own, tighter deadline (readBody).
      requestTimeout: timeouts.headersMs + timeouts.bodyMs + 5_000,
      // How often Node checks those two deadlines (default 30 s, which would stretch them).
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
    },
    (req, res) => {
      (serve ? serve(req, res) : ready.then(() => serve!(req, res))).catch((err: unknown) => {
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
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let started: Omit<LocalServer, 'url'>;
  try {
    started = await startStack(options, timeouts, (handler) => (serve = handler), url);
    setUp.resolve();
  } catch (err) {
    setUp.reject(err);
    await closeServer(server);
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    ...started,
    url,
    close: () =>
      (closing ??= (async () => {
        await closeServer(server);
        await started.close();
      })()),
  };
}

/**
 * Everything behind the listening socket: the data directory and its lock, dynalite, the Firehose
 * endpoint, the analyst views, the handlers, the results job. A failure undoes what was started.
 */
async function startStack(
  options: LocalServerOptions,
  timeouts: RequestTimeouts,
  listen: (serve: (req: IncomingMessage, res: ServerResponse) => Promise<void>) => void,
  /** The server's origin, which export download links point at. */
  origin: string,
): Promise<Omit<LocalServer, 'url'>> {
  if (options.keepEventsDays !== undefined) {
    const problem = keepEventsDaysProblem(options.keepEventsDays);
    if (problem) throw new Error(`keepEventsDays (TALLY_KEEP_EVENTS_DAYS) ${problem}`);
  }
  const unlock = options.inMemoryDynamo ? () => undefined : lockDataDir(options.dataDir);
  const undo: Array<() => Promise<void> | void> = [unlock];
  try {
    const dynamo = await startDynalite(options.inMemoryDynamo ? undefined : join(options.dataDir, 'dynamodb'));
    undo.unshift(() => dynamo.close());
    await ensureTables(dynamo.endpoint);
    // A data directory from before the landing layout: its files move into landing hours first.
    const legacy = await moveLegacyLayout(options.dataDir);
    if (legacy.files > 0) log('info', 'moved raw files of the old layout into landing hours; compaction takes them in', { files: legacy.files });
    // Curated files from before a curated-only column: rewritten with it (curated-columns.ts).
    const upgraded = await addCuratedColumns(options.dataDir);
    if (upgraded.files > 0) log('info', 'rewrote curated files of an older layout with the columns they lacked', { files: upgraded.files });
    const { events: eventsDir, identities: identitiesDir } = localStreamDirs(options.dataDir);
    const firehose = await startLocalFirehose(localFirehoseTargets(options.dataDir), options.clock);
    undo.unshift(() => firehose.close());

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
      claimLeaseMs: options.claimLeaseMs,
      oidc: options.oidc,
      origin,
    });
    const retained = options.keepEventsDays === undefined ? baseDeps : { ...baseDeps, keepEventsDays: options.keepEventsDays };
    const deps = options.overrides ? options.overrides(retained) : retained;
    // What the deploy does on AWS (the analytics-views custom resource), at every start: the views follow the code.
    await deps.analyticsViews.create();
    // And again at each stream's first delivery of this run: a stream with no file had an empty view.
    const delivered = new Set<string>();
    firehose.onDelivered = (stream) => {
      if (delivered.has(stream)) return;
      delivered.add(stream);
      deps.analyticsViews.create().catch((err: unknown) => log('error', 'could not write the analyst views (views.sql)', errorFields(err)));
    };
    const handlers = createHandlers(deps);
    const gateway = localGateway(deps, handlers, {
      timeouts,
      handlerTimeoutMs: options.handlerTimeoutMs,
      largeBatchWaitMs: options.largeBatchWaitMs,
      trustProxy: options.trustProxy ?? false,
      dataDir: options.dataDir,
      oidc: options.oidc,
    });
    // Export download links (S3 presigned URLs on AWS): served here, checked by their signature.
    listen((req, res) =>
      req.method === 'GET' && req.url?.startsWith(LOCAL_EXPORTS_PATH) ? serveExport(baseDeps.exportFiles, req, res, deps.clock()) : gateway(req, res),
    );

    const scheduler = scheduleResultsJob(deps, options.resultsIntervalMs);
    // Compaction in a DuckDB process of its own at a lower priority, as the requests' queries run.
    const compactionDuckDb = new DuckDbProcess();
    undo.unshift(() => compactionDuckDb.close());
    const compactionStore = new DuckDbCompactionStore(
      options.dataDir,
      compactionDuckDb,
      () => deps.analyticsViews.create(),
      (work) => firehose.exclusive(work),
    );
    const compaction = scheduleCompaction(
      compactionStore,
      options.compactionIntervalMs,
      deps.clock,
      {
        ...localPersonRecords(ddb),
        deletions: deps.deletions,
        files: compactionStore,
        exports: { store: deps.exports, files: deps.exportFiles },
        exportRows: new DuckDbPersonRows(options.dataDir, compactionDuckDb),
        ...(options.deletionStepHook ? { beforeStep: options.deletionStepHook } : {}),
      },
      options.keepEventsDays,
      (nowMs) => baseDeps.exportFiles.expire(nowMs),
    );
    void compaction.runNow();
    return {
      deps,
      firehose,
      eventsDir,
      identitiesDir,
      analystViews: join(options.dataDir, ANALYST_VIEWS_FILE),
      compaction,
      close: async () => {
        await scheduler.stop();
        await compaction.stop();
        await compactionDuckDb.close();
        await firehose.close();
        await deps.resultsQuery.close?.();
        await deps.recentEvents.close?.();
        await deps.recentUsers.close?.();
        await deps.planningBaselines.close?.();
        ddb.destroy();
        firehoseSdk.destroy();
        await dynamo.close();
        unlock();
      },
    };
  } catch (err) {
    for (const step of undo) await Promise.resolve(step()).catch(() => undefined);
    throw err;
  }
}

/** A download link's file (local/export-files.ts), or what is wrong with the link. */
async function serveExport(files: LocalExportFiles, req: IncomingMessage, res: ServerResponse, nowMs: number): Promise<void> {
  req.resume();
  const answer = await files.download(new URL(req.url!, 'http://local'), nowMs);
  if (answer.status !== 200) {
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: answer.error }));
    return;
  }
  res
    .writeHead(200, {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="tally-export-${answer.exportId}.ndjson"`,
      'cache-control': 'no-store',
    })
    .end(answer.body);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // In-flight requests finish; idle keep-alive sockets would otherwise hold close() open.
    server.closeIdleConnections();
  });
}
