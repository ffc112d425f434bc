/**
 * The results query on AWS: Athena over the raw streams in S3 (Glue tables tally.events and
 * tally.identities, lib/analytics.ts), running the same SQL text as DuckDB locally
 * (sql/results-count.sql, rendered by sql/render.ts with the Glue table names).
 *
 * StartQueryExecution in the workgroup (which fixes the results location, encryption and the
 * per-query scan limit), then GetQueryExecution polled with exponential backoff (pollMs doubling up
 * to 5 s) until it succeeds, fails, is cancelled or maxWaitMs (default 60 s) or the caller's deadline
 * passes: then the query is stopped (best effort) and count() throws (DeadlineExceeded for the
 * deadline). Results are read with GetQueryResults, page by page.
 */
import {
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
  type AthenaClient,
  type QueryExecution,
} from '@aws-sdk/client-athena';
import { DeadlineExceeded } from '../domain/deadline';
import type { Computation, CountOptions, CountRequest, CountResult, ResultsQuery } from '../ports';
import { renderResultsCount, toCountResult } from './sql/render';

export interface AthenaResultsQueryOptions {
  workGroup: string;
  /** Glue database: the query's execution context and the qualifier of unqualified table names. @default 'tally' */
  database?: string;
  /** @default 'events' (rendered as <database>.events); a qualified name is used as is. */
  eventsTable?: string;
  /** @default 'identities' (rendered as <database>.identities); a qualified name is used as is. */
  identitiesTable?: string;
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
  ) {
    super(message);
  }
}

export class AthenaResultsQuery implements ResultsQuery {
  private readonly database: string;
  private readonly tables: { events: string; identities: string };
  private readonly maxWaitMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly athena: AthenaClient,
    private readonly options: AthenaResultsQueryOptions,
  ) {
    this.database = options.database ?? 'tally';
    const qualify = (table: string) => (table.includes('.') ? table : `${this.database}.${table}`);
    this.tables = { events: qualify(options.eventsTable ?? 'events'), identities: qualify(options.identitiesTable ?? 'identities') };
    this.maxWaitMs = options.maxWaitMs ?? 60_000;
    this.pollMs = Math.max(1, options.pollMs ?? 500);
  }

  /** The exact text count() sends for a request. */
  sql(request: CountRequest): string {
    return renderResultsCount(request, this.tables);
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
  async run(sql: string, deadlineMs = Infinity): Promise<{ rows: Array<Record<string, string | undefined>>; execution: QueryExecution }> {
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
    return { rows: await this.readRows(id), execution };
  }

  /** The qualified events table name. */
  get eventsTable(): string {
    return this.tables.events;
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
        throw new AthenaQueryError(`Athena results query ${id} ${state}: ${reason}`, id);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        await this.athena.send(new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
        if (deadlineMs < ownLimit) throw new DeadlineExceeded(`Athena results query ${id} was stopped at the run deadline (last state ${state ?? 'unknown'})`);
        throw new AthenaQueryError(
          `Athena results query ${id} did not finish within ${this.maxWaitMs} ms (last state ${state ?? 'unknown'}); it was stopped`,
          id,
        );
      }
      await sleep(Math.min(delay, remaining));
      delay = Math.min(delay * 2, MAX_POLL_MS);
    }
  }

  /** All result rows as objects keyed by column name (the first row of the first page is the header). */
  private async readRows(id: string): Promise<Array<Record<string, string | undefined>>> {
    const rows: Array<Record<string, string | undefined>> = [];
    let columns: string[] | undefined;
    let nextToken: string | undefined;
    let first = true;
    do {
      const page = await this.athena.send(new GetQueryResultsCommand({ QueryExecutionId: id, NextToken: nextToken, MaxResults: 1000 }));
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
    return rows;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
