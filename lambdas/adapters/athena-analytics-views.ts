/**
 * The analyst views on AWS: Athena views in the stack's Glue database, next to the raw tables
 * (docs/data-model.md, "Unique events"). Created at deploy by a CloudFormation custom resource
 * (lambdas/handlers/analytics-views.ts), with Athena's own DDL: CREATE OR REPLACE VIEW
 * <database>.unique_events AS <sql/unique-events.sql over <database>.events>, run in the workgroup
 * like any query. Athena stores the view in the Glue Data Catalog itself, in the form it reads back;
 * nothing here writes Glue's view encoding by hand (docs/decisions/count-each-event-once.md).
 * drop() runs DROP VIEW IF EXISTS.
 */
import type { AnalyticsViews } from '../ports';
import type { AthenaResultsQuery } from './athena-results-query';
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
    for (const sql of this.createStatements()) await this.athena.run(sql, Date.now() + this.options.maxWaitMs);
  }

  async drop(): Promise<void> {
    await this.athena.run(`DROP VIEW IF EXISTS ${this.uniqueEventsView}`, Date.now() + this.options.maxWaitMs);
  }
}
