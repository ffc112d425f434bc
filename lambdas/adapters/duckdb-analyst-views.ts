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
 * that matches no file ("No files found that match the pattern"): a stream with no file yet (no
 * event, or no identity link: a project that never calls identify) gets an empty view of the same
 * columns instead, so every query of the data model and every copied query still runs; the server
 * writes the script again when such a stream gets its first file (lambdas/local/server.ts).
 */
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ARRIVAL_PARTITION } from '../contract/arrival-partition';
import type { AnalyticsViews } from '../ports';
import { emptyStreamSelect, EVENT_COLUMNS, IDENTITY_COLUMNS, readJsonSql, TRINO_COMPAT_MACROS, type DuckType } from './duckdb-results-query';
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

/** Whether each raw stream has a file its view's glob matches. */
export interface StreamFiles {
  events: boolean;
  identities: boolean;
}

export function analystViewsScript(dataDir: string, present: StreamFiles): string {
  const view = (name: keyof StreamFiles, columns: Record<string, DuckType>, byArrival: boolean) =>
    present[name]
      ? `CREATE OR REPLACE VIEW ${name} AS ${streamSelect(join(dataDir, name), columns, byArrival)};`
      : `-- No ${name} file yet: an empty view until the first (npm start writes this file again then).\nCREATE OR REPLACE VIEW ${name} AS ${emptyStreamSelect(columns)};`;
  return [
    `-- Tally's raw streams under ${dataDir}, as DuckDB views named like the Athena tables`,
    `-- (docs/data-model.md, "Querying locally with DuckDB"). Written by npm start; changes are overwritten.`,
    `-- Open with: duckdb -init ${join(dataDir, ANALYST_VIEWS_FILE)}`,
    ...TRINO_COMPAT_MACROS.map((macro) => `${macro};`),
    view('events', EVENT_COLUMNS, true),
    `${renderCreateUniqueEventsView(UNIQUE_EVENTS_VIEW, 'events')};`,
    view('identities', IDENTITY_COLUMNS, false),
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
    const [events, identities] = await Promise.all([hasStreamFile(join(this.dataDir, 'events'), 3), hasStreamFile(join(this.dataDir, 'identities'), 2)]);
    await writeFile(this.file, analystViewsScript(this.dataDir, { events, identities }));
  }

  async drop(): Promise<void> {
    await rm(this.file, { force: true });
  }
}

/** Whether dir holds a .ndjson file `depth` folders down (the glob of streamGlob), stopping at the first. */
async function hasStreamFile(dir: string, depth: number): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  if (depth === 0) return entries.some((entry) => entry.isFile() && entry.name.endsWith('.ndjson'));
  for (const entry of entries) {
    if (entry.isDirectory() && (await hasStreamFile(join(dir, entry.name), depth - 1))) return true;
  }
  return false;
}
