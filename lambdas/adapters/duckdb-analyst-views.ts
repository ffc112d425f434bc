/**
 * The local analyst views: a DuckDB script, <data dir>/views.sql, that `npm start` writes (again at
 * every start, so it follows the code) for analysts querying the local files as they would query
 * Athena (docs/data-model.md, "Querying locally with DuckDB"):
 *
 *   events         every line of the raw event files: tally.events
 *   identities     every line of the identity stream files: tally.identities
 *   unique_events  events with every event once (sql/unique-events.sql): tally.unique_events
 *
 * plus the Trino functions the results SQL needs (json_extract_scalar, from_iso8601_timestamp), so
 * the queries of the data model run unchanged. The views read the files through a glob, when a
 * query runs, so events stored after the script ran are seen. DuckDB refuses a view over a glob
 * that matches no file ("No files found that match the pattern"): a view can be created once its
 * stream has a file (the first event; the first identity link), so the events views come first and
 * the DuckDB shell, which goes on after a failed statement, creates them even before any link.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ARRIVAL_PARTITION } from '../contract/arrival-partition';
import type { AnalyticsViews } from '../ports';
import { EVENT_COLUMNS, IDENTITY_COLUMNS, readJsonSql, TRINO_COMPAT_MACROS, type DuckType } from './duckdb-results-query';
import { renderCreateUniqueEventsView, UNIQUE_EVENTS_VIEW } from './sql/unique-events';

export const ANALYST_VIEWS_FILE = 'views.sql';

/**
 * Every line of a raw stream's files under dir: project_id=<id>/dt=<day>/<file>.ndjson, and for the
 * events .../received=<hour>/<file>.ndjson (contract/arrival-partition.ts).
 */
const streamGlob = (dir: string, byArrival: boolean) => join(dir, ...(byArrival ? ['*', '*', '*'] : ['*', '*']), '*.ndjson');

/**
 * The Glue table's column order: the data columns, then the partition columns (DuckDB puts dt first).
 * The arrival hour is left out, as tally.events (the analysts' table) does.
 */
const streamSelect = (dir: string, columns: Record<string, DuckType>, byArrival: boolean) =>
  `SELECT * EXCLUDE (project_id, dt${byArrival ? `, ${ARRIVAL_PARTITION}` : ''}), project_id, dt FROM ${readJsonSql(streamGlob(dir, byArrival), columns)}`;

export function analystViewsScript(dataDir: string): string {
  return [
    `-- Tally's raw streams under ${dataDir}, as DuckDB views named like the Athena tables`,
    `-- (docs/data-model.md, "Querying locally with DuckDB"). Written by npm start; changes are overwritten.`,
    `-- Open with: duckdb -init ${join(dataDir, ANALYST_VIEWS_FILE)}`,
    ...TRINO_COMPAT_MACROS.map((macro) => `${macro};`),
    `CREATE OR REPLACE VIEW events AS ${streamSelect(join(dataDir, 'events'), EVENT_COLUMNS, true)};`,
    `${renderCreateUniqueEventsView(UNIQUE_EVENTS_VIEW, 'events')};`,
    `CREATE OR REPLACE VIEW identities AS ${streamSelect(join(dataDir, 'identities'), IDENTITY_COLUMNS, false)};`,
    '',
  ].join('\n');
}

/** The analyst views locally: create() (re)writes <data dir>/views.sql, drop() removes it. */
export class DuckDbAnalyticsViews implements AnalyticsViews {
  constructor(private readonly dataDir: string) {}

  get file(): string {
    return join(this.dataDir, ANALYST_VIEWS_FILE);
  }

  async create(): Promise<void> {
    await writeFile(this.file, analystViewsScript(this.dataDir));
  }

  async drop(): Promise<void> {
    await rm(this.file, { force: true });
  }
}
