/**
 * The analyst views on AWS: Athena views in the stack's Glue database, next to the raw tables
 * (docs/data-model.md, "Unique events"). Created at deploy by a CloudFormation custom resource
 * (lambdas/handlers/analytics-views.ts), with Athena's own DDL: CREATE OR REPLACE VIEW
 * <database>.unique_events AS <sql/unique-events.sql over <database>.events>, run in the workgroup
 * like any query. Athena stores the view in the Glue Data Catalog itself, in the form it reads back;
 * nothing here writes Glue's view encoding by hand (docs/decisions/count-each-event-once.md).
 * drop() runs DROP VIEW IF EXISTS.
 *
 * Every statement's result files are removed from the results bucket once it has run, whether it
 * succeeded or failed: a first create that rolls back must leave that bucket empty, or CloudFormation
 * cannot delete it (docs/decisions/first-deploy-rollback.md). A removal that fails is logged and does
 * not fail the statement: the view is made, and the files only matter to such a rollback.
 */
import { errorFields, log } from '../logging/log';
import type { AnalyticsViews } from '../ports';
import { AthenaQueryError, type AthenaResultsQuery } from './athena-results-query';
import type { QueryResultFiles } from './s3-query-result-files';
import { renderCreateUniqueEventsView, UNIQUE_EVENTS_VIEW } from './sql/unique-events';

export interface AthenaAnalyticsViewsOptions {
  /** The Glue database of the raw tables, where the views go. */
  database: string;
  /** How long a statement may wait for Athena. */
  maxWaitMs: number;
}

export class AthenaAnalyticsViews implements AnalyticsViews {
  constructor(
    private readonly athena: Pick<AthenaResultsQuery, 'run' | 'eventsTable'>,
    private readonly options: AthenaAnalyticsViewsOptions,
    private readonly resultFiles: QueryResultFiles,
  ) {}

  /** The qualified name of the unique events view. */
  get uniqueEventsView(): string {
    return `${this.options.database}.${UNIQUE_EVENTS_VIEW}`;
  }

  /** The statements create() runs, in order. */
  createStatements(): string[] {
    return [renderCreateUniqueEventsView(this.uniqueEventsView, this.athena.eventsTable)];
  }

  async create(): Promise<void> {
    for (const sql of this.createStatements()) await this.runAndClean(sql);
  }

  async drop(): Promise<void> {
    await this.runAndClean(`DROP VIEW IF EXISTS ${this.uniqueEventsView}`);
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
