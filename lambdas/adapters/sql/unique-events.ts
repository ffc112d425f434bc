/**
 * The unique events view (unique-events.sql): the raw events table with every event once. Rendered
 * for Athena's CREATE OR REPLACE VIEW (lambdas/entry/analytics-views.ts) and for the local DuckDB
 * views (duckdb-analyst-views.ts), from the same text. Pure.
 */
import { UNIQUE_EVENTS_VIEW } from '../../contract/analytics-views';
import { expandIncludes } from './include';
import { renderSql, tableRef } from './render';
import UNIQUE_EVENTS_SQL from './unique-events.sql';

export { UNIQUE_EVENTS_VIEW };

/** The view's query over an events table (tally.events, or the local view events). */
export function renderUniqueEvents(eventsTable: string): string {
  return renderSql(expandIncludes(UNIQUE_EVENTS_SQL), {}, { events: eventsTable });
}

/** The statement that creates or replaces the view (Athena; DuckDB runs the same). */
export function renderCreateUniqueEventsView(view: string, eventsTable: string): string {
  return `CREATE OR REPLACE VIEW ${tableRef(view)} AS\n${renderUniqueEvents(eventsTable)}`;
}
