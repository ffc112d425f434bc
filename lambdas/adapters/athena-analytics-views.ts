/**
 * The readers' views on AWS: Athena views in the stack's Glue database over the landing and curated
 * tables (docs/decisions/columnar-events.md, "What readers see"): events, identities, unique_events and
 * events_by_arrival (athena-compaction.ts viewStatements). Created at deploy by a CloudFormation custom
 * resource (lambdas/handlers/analytics-views.ts) with each stream's tail bounded by the hour its
 * compaction state names (read, never reset: a redeploy keeps what compaction committed), and
 * re-created by the compaction job each time that hour moves. Athena's own DDL, CREATE OR REPLACE
 * VIEW, run in the workgroup like any query: Athena stores the view in the Glue Data Catalog itself,
 * in the form it reads back; nothing here writes Glue's view encoding by hand
 * (docs/decisions/count-each-event-once.md). drop() runs DROP VIEW IF EXISTS for each.
 *
 * Every statement's result files are removed from the results bucket once it has run, whether it
 * succeeded or failed: a first create that rolls back must leave that bucket empty, or CloudFormation
 * cannot delete it (docs/decisions/first-deploy-rollback.md). A removal that fails is logged and does
 * not fail the statement: the view is made, and the files only matter to such a rollback.
 */
import { errorFields, log } from '../logging/log';
import type { AnalyticsViews } from '../ports';
import { STREAM_NAMES, type StreamName } from '../contract/landing';
import type { CompactionState } from '../domain/compaction-state';
import { VIEW_NAMES, viewStatements } from './athena-compaction';
import { AthenaQueryError, type AthenaResultsQuery } from './athena-results-query';
import type { QueryResultFiles } from './s3-query-result-files';

export interface AthenaAnalyticsViewsOptions {
  /** The Glue database of the raw tables, where the views go. */
  database: string;
  /** How long a statement may wait for Athena. */
  maxWaitMs: number;
}

export class AthenaAnalyticsViews implements AnalyticsViews {
  constructor(
    private readonly athena: Pick<AthenaResultsQuery, 'run'>,
    private readonly options: AthenaAnalyticsViewsOptions,
    private readonly resultFiles: QueryResultFiles,
    /** A stream's compaction state (athena-compaction.ts readCompactionStateObject): the views' bound. */
    private readonly compactionState: (stream: StreamName) => Promise<CompactionState>,
  ) {}

  /** The statements create() runs, in order. */
  async createStatements(): Promise<string[]> {
    const through = await Promise.all(STREAM_NAMES.map(async (s) => [s, (await this.compactionState(s)).compactedThrough] as const));
    return viewStatements(this.options.database, Object.fromEntries(through) as Record<StreamName, string | undefined>);
  }

  async create(): Promise<void> {
    for (const sql of await this.createStatements()) await this.runAndClean(sql);
  }

  async drop(): Promise<void> {
    for (const view of [...VIEW_NAMES].reverse()) await this.runAndClean(`DROP VIEW IF EXISTS ${this.options.database}.${view}`);
  }

  /** Runs one statement, then removes the result files it wrote, also when it failed. */
  private async runAndClean(sql: string): Promise<void> {
    let location: string | undefined;
    try {
      const { execution } = await this.athena.run(sql, Date.now() + this.options.maxWaitMs);
      location = execution.ResultConfiguration?.OutputLocation;
    } catch (err) {
      if (err instanceof AthenaQueryError) location = err.outputLocation;
      throw err;
    } finally {
      if (location) {
        await this.resultFiles.remove(location).catch((err: unknown) => log('error', 'analyst views: result files not removed', errorFields(err)));
      }
    }
  }
}
