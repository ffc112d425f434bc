/**
 * The results query on AWS: Athena over the raw streams in S3 (Glue tables tally.events and
 * tally.identities, lib/analytics.ts), running the same SQL text as DuckDB locally
 * (sql/results-count.sql with its sql/rules/ included, rendered by sql/render.ts with the Glue table names).
 *
 * StartQueryExecution in the workgroup (which fixes the results location, encryption and the
 * per-query scan limit), then GetQueryExecution polled with exponential backoff (pollMs doubling up
 * to 5 s) until it succeeds, fails, is cancelled or maxWaitMs (default 60 s) or the caller's deadline
 * passes: then the query is stopped (best effort) and count() throws (DeadlineExceeded for the
 * deadline). Results are read with GetQueryResults, page by page.
 */
import { randomUUID } from 'node:crypto';
import {
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type AthenaClient,
  type QueryExecution,
} from '@aws-sdk/client-athena';
import { EVENTS_BY_ARRIVAL_VIEW } from '../contract/landing';
import { RESULTS_BASE, RESULTS_STATE } from '../contract/results-state';
import { DeadlineExceeded } from '../domain/deadline';
import { DEFAULT_ARRIVAL_ALLOWANCE_MS, nextSlice, stateServes } from '../domain/results-watermark';
import { FUNCTION_DIMENSION, METRICS_NAMESPACE, RESULTS_BASE_WRITE_FAILED, RESULTS_STATE_WRITE_FAILED } from '../contract/metrics';
import { baseDue, baseFor, newGeneration, startWatermark, supersededGenerations, type BaseCommit } from '../domain/results-base';
import { errorFields, log } from '../logging/log';
import { emitMetric, functionName } from '../logging/metric';
import type {
  Computation,
  CountOptions,
  CountRequest,
  CountResult,
  IncrementalCountRequest,
  IncrementalCountResult,
  IncrementalRun,
  ResultsQuery,
} from '../ports';
import type { QueryResultFiles } from './s3-query-result-files';
import type { ResultsBaseStore } from './s3-results-base';
import {
  renderResultsBaseInsert,
  renderResultsCountIncremental,
  renderResultsCommit,
  renderResultsStateInsert,
  renderResultsWatermark,
  stateFromDt,
  stateStartWatermark,
} from './sql/render-incremental';
import { metricSourceSet, renderResultsCount, toCountResult, toStoredIso } from './sql/render';

export interface AthenaResultsQueryOptions {
  workGroup: string;
  /** Glue database: the query's execution context and the qualifier of unqualified table names. @default 'tally' */
  database?: string;
  /** @default 'events' (rendered as <database>.events); a qualified name is used as is. */
  eventsTable?: string;
  /** @default 'events_by_arrival' (the incremental job's view of the landing events, contract/landing.ts); a qualified name is used as is. */
  eventsByArrivalTable?: string;
  /** @default 'identities' (rendered as <database>.identities); a qualified name is used as is. */
  identitiesTable?: string;
  /** @default 'results_state' (the incremental job's state, contract/results-state.ts); a qualified name is used as is. */
  stateTable?: string;
  /** @default 'results_base' (the incremental job's rolled-up closed days, contract/results-state.ts); a qualified name is used as is. */
  baseTable?: string;
  /**
   * When set, run() deletes each query's result files as soon as it has read the rows: for the
   * listings, whose answers name people (user IDs, emails), so no file of theirs outlives a person's
   * deletion (docs/decisions/erasure.md, "Athena result files"). A deletion S3 refuses fails the run.
   */
  forgetResults?: QueryResultFiles;
  /** How long after its arrival an event may reach S3 (Firehose buffering plus a margin). @default DEFAULT_ARRIVAL_ALLOWANCE_MS */
  arrivalAllowanceMs?: number;
  /**
   * The experiments' base commits and generations (S3ResultsBase over the raw bucket). Without it the
   * job reads every state day of the experiment (no roll-up).
   */
  base?: ResultsBaseStore;
  /** How long count() waits for the query before stopping it and throwing. @default 60_000 */
  maxWaitMs?: number;
  /** First poll delay; doubles after each poll up to 5 s. @default 500 */
  pollMs?: number;
}

const MAX_POLL_MS = 5_000;

export class AthenaQueryError extends Error {
  override name = 'AthenaQueryError';
  constructor(
    message: string,
    readonly queryExecutionId: string | undefined,
    /** Where the query wrote its result files (GetQueryExecution's OutputLocation), when Athena said. */
    readonly outputLocation?: string,
  ) {
    super(message);
  }
}

export class AthenaResultsQuery implements ResultsQuery {
  private readonly database: string;
  private readonly tables: { events: string; eventsByArrival: string; identities: string; state: string; base: string };
  private readonly maxWaitMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly athena: AthenaClient,
    private readonly options: AthenaResultsQueryOptions,
  ) {
    this.database = options.database ?? 'tally';
    const qualify = (table: string) => (table.includes('.') ? table : `${this.database}.${table}`);
    this.tables = {
      events: qualify(options.eventsTable ?? 'events'),
      eventsByArrival: qualify(options.eventsByArrivalTable ?? EVENTS_BY_ARRIVAL_VIEW),
      identities: qualify(options.identitiesTable ?? 'identities'),
      state: qualify(options.stateTable ?? RESULTS_STATE.table),
      base: qualify(options.baseTable ?? RESULTS_BASE.table),
    };
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
    this.pollMs = Math.max(1, options.pollMs ?? 500);
  }

  /** The exact text count() sends for a request. */
  sql(request: CountRequest): string {
    return renderResultsCount(request, { events: this.tables.events, identities: this.tables.identities });
  }

  /**
   * The incremental count (docs/identity-and-experiments.md, "Incremental computation"): the base
   * commit (S3, options.base); the committed watermark (results-watermark.sql, the state days from
   * the base's boundary); INSERT INTO the state of the next complete slice's summary, then its commit
   * marker (results-commit.sql), only after the insert succeeded; once a day has closed, INSERT INTO
   * a new base generation (results-base.sql) and its S3 commit; the count from the base, the state
   * days after it and the raw events received since the committed watermark; then the superseded
   * generations are deleted. A failed insert or commit is logged with its metric and the count reads
   * from what is still committed, so the results stay exact. bytesScanned is the sum over the queries.
   */
  async countIncremental(request: IncrementalCountRequest, options: CountOptions = {}): Promise<IncrementalCountResult> {
    const deadlineMs = options.deadlineMs ?? Infinity;
    const to = toStoredIso(request.to, 'to');
    let bytesScanned = 0;
    const run = async (sql: string) => {
      const result = await this.run(sql, deadlineMs);
      bytesScanned += result.execution.Statistics?.DataScannedInBytes ?? 0;
      return result.rows;
    };
    // A base of another set of metric sources is not read (domain/results-base.ts baseFor): the
    // watermark of this set is then read from the empty state's day, and the next roll-up replaces it.
    const metricSources = metricSourceSet(request.metrics, request.cupedLookbackDays);
    let base = baseFor(await this.options.base?.readCommit(request.projectId, request.experimentId), metricSources);
    const stored = (await run(renderResultsWatermark(request, this.tables, base)))[0]?.watermark;
    // The slices after the base, never before the base's own watermark (its last slice may start before its boundary).
    const previousWatermark = startWatermark(stored ? toStoredIso(stored, 'watermark') : undefined, base, stateStartWatermark(request));
    if (!stateServes(previousWatermark, to)) {
      // A stop raced a running computation: the state holds events received after the run's end.
      const full = await this.count(request, options);
      return {
        ...full,
        bytesScanned: bytesScanned + (full.bytesScanned ?? 0),
        incremental: { previousWatermark, watermark: previousWatermark, committed: false, fullRecompute: true },
      };
    }
    const state: IncrementalRun = { previousWatermark, watermark: previousWatermark, committed: false, fullRecompute: false };
    const slice = nextSlice({
      watermark: previousWatermark,
      now: request.now,
      to,
      allowanceMs: this.options.arrivalAllowanceMs ?? DEFAULT_ARRIVAL_ALLOWANCE_MS,
    });
    if (slice) {
      try {
        await run(renderResultsStateInsert(request, slice, this.tables));
        await run(renderResultsCommit(request, slice, this.tables));
        state.watermark = slice.hi;
        state.committed = true;
      } catch (err) {
        if (err instanceof DeadlineExceeded) throw err;
        log('warn', 'results state not advanced; counting from the previous watermark (metric ResultsStateWriteFailed)', {
          project_id: request.projectId,
          experiment_id: request.experimentId,
          ...errorFields(err),
        });
        emitFailure(RESULTS_STATE_WRITE_FAILED);
      }
    }
    const store = this.options.base;
    const due = store && state.committed ? baseDue(base, state.watermark, stateFromDt(request)) : undefined;
    if (store && due) {
      // A new generation each attempt: a failed or partial INSERT is never named by a commit.
      const generation = newGeneration(request.now, randomUUID().replace(/-/g, ''));
      try {
        await run(renderResultsBaseInsert(request, { previous: base, ...due, watermark: state.watermark, generation }, this.tables));
        const commit: BaseCommit = {
          generation,
          boundaryDt: due.boundaryDt,
          watermark: state.watermark,
          committedAt: new Date().toISOString(),
          metricSources,
        };
        await store.writeCommit(request.projectId, request.experimentId, commit);
        base = commit;
        state.compactedDays = daysBetween(due.closedFromDt, due.closedToDt);
      } catch (err) {
        if (err instanceof DeadlineExceeded) throw err;
        log('warn', 'results base not rolled up; counting from the previous base (metric ResultsBaseWriteFailed)', {
          project_id: request.projectId,
          experiment_id: request.experimentId,
          generation,
          ...errorFields(err),
        });
        emitFailure(RESULTS_BASE_WRITE_FAILED);
      }
    }
    const rows = await run(renderResultsCountIncremental(request, state.watermark, this.tables, base));
    if (base) {
      state.baseGeneration = base.generation;
      if (store && Date.now() < deadlineMs) await this.deleteSuperseded(store, request, base);
    }
    return { ...toCountResult(request, rows), bytesScanned, incremental: state };
  }

  /**
   * Deletes the generations no run reads or writes any more (domain/results-base.ts
   * supersededGenerations). Best effort: a failure is logged and harmless (the objects stay, unread,
   * and the next run tries again).
   */
  private async deleteSuperseded(store: ResultsBaseStore, request: IncrementalCountRequest, commit: BaseCommit): Promise<void> {
    try {
      const superseded = supersededGenerations(await store.listGenerations(request.projectId, request.experimentId), commit, new Date().toISOString());
      for (const generation of superseded) await store.deleteGeneration(request.projectId, request.experimentId, generation);
    } catch (err) {
      log('warn', 'superseded results base generations not deleted (they stay unread; the next run tries again)', {
        project_id: request.projectId,
        experiment_id: request.experimentId,
        ...errorFields(err),
      });
    }
  }

  describe(request: CountRequest): Computation {
    return { engine: 'athena', query: this.sql(request) };
  }

  async count(request: CountRequest, options: CountOptions = {}): Promise<CountResult> {
    const { rows, execution } = await this.run(this.describe(request).query, options.deadlineMs);
    return {
      ...toCountResult(request, rows),
      bytesScanned: execution.Statistics?.DataScannedInBytes ?? 0,
    };
  }

  /** Runs one query in the workgroup and reads all its rows (also used by the recent-events listing). */
  async run(sql: string, deadlineMs = Infinity): Promise<{ rows: Array<Record<string, string | undefined>>; execution: QueryExecution; updateCount?: number }> {
    // Not even started past the deadline: a query stopped at once is still billed for what it scanned.
    if (Date.now() >= deadlineMs) throw new DeadlineExceeded('The run deadline passed before the Athena query started');
    const started = await this.athena.send(
      new StartQueryExecutionCommand({
        QueryString: sql,
        WorkGroup: this.options.workGroup,
        QueryExecutionContext: { Database: this.database },
      }),
    );
    const id = started.QueryExecutionId;
    if (!id) throw new AthenaQueryError('Athena StartQueryExecution returned no QueryExecutionId', undefined);
    const execution = await this.waitFor(id, deadlineMs);
    const read = await this.readRows(id);
    const location = execution.ResultConfiguration?.OutputLocation;
    if (this.options.forgetResults && location) await this.options.forgetResults.remove(location);
    return { ...read, execution };
  }

  /** The qualified events table name. */
  get eventsTable(): string {
    return this.tables.events;
  }

  /** The qualified identities table name. */
  get identitiesTable(): string {
    return this.tables.identities;
  }

  private async waitFor(id: string, deadlineMs: number): Promise<QueryExecution> {
    const ownLimit = Date.now() + this.maxWaitMs;
    const deadline = Math.min(ownLimit, deadlineMs);
    let delay = this.pollMs;
    for (;;) {
      const { QueryExecution: execution } = await this.athena.send(new GetQueryExecutionCommand({ QueryExecutionId: id }));
      const state = execution?.Status?.State;
      if (state === 'SUCCEEDED') return execution!;
      if (state === 'FAILED' || state === 'CANCELLED') {
        const reason = execution?.Status?.StateChangeReason ?? execution?.Status?.AthenaError?.ErrorMessage ?? 'no reason given';
        throw new AthenaQueryError(`Athena results query ${id} ${state}: ${reason}`, id, execution?.ResultConfiguration?.OutputLocation);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        await this.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
        if (deadlineMs < ownLimit) throw new DeadlineExceeded(`Athena results query ${id} was stopped at the run deadline (last state ${state ?? 'unknown'})`);
        throw new AthenaQueryError(
          `Athena results query ${id} did not finish within ${this.maxWaitMs} ms (last state ${state ?? 'unknown'}); it was stopped`,
          id,
          execution?.ResultConfiguration?.OutputLocation,
        );
      }
      await sleep(Math.min(delay, remaining));
      delay = Math.min(delay * 2, MAX_POLL_MS);
    }
  }

  /**
   * All result rows as objects keyed by column name (the first row of the first page is the header),
   * and GetQueryResults' UpdateCount: "The number of rows inserted with a CREATE TABLE AS SELECT,
   * INSERT INTO, or UPDATE statement" (https://docs.aws.amazon.com/athena/latest/APIReference/API_GetQueryResults.html).
   */
  private async readRows(id: string): Promise<{ rows: Array<Record<string, string | undefined>>; updateCount?: number }> {
    const rows: Array<Record<string, string | undefined>> = [];
    let columns: string[] | undefined;
    let nextToken: string | undefined;
    let first = true;
    let updateCount: number | undefined;
    do {
      const page = await this.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: nextToken, MaxResults: 1000 }));
      updateCount ??= page.UpdateCount;
      columns ??= (page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c) => c.Name ?? '');
      const data = page.ResultSet?.Rows ?? [];
      data.forEach((row, index) => {
        if (first && index === 0) return; // header row
        const values = row.Data ?? [];
        rows.push(Object.fromEntries(columns!.map((name, i) => [name, values[i]?.VarCharValue])));
      });
      first = false;
      nextToken = page.NextToken;
    } while (nextToken);
    return { rows, ...(updateCount === undefined ? {} : { updateCount }) };
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The loud side of a state or base write that failed: the metrics lib/alarms.ts alarms on. */
function emitFailure(name: typeof RESULTS_STATE_WRITE_FAILED | typeof RESULTS_BASE_WRITE_FAILED): void {
  emitMetric({ namespace: METRICS_NAMESPACE, name, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
}

/** The days fromDt..toDt (YYYY-MM-DD), both included. */
const daysBetween = (fromDt: string, toDt: string) => Math.round((Date.parse(toDt) - Date.parse(fromDt)) / 86_400_000) + 1;
