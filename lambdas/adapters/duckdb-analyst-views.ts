/**
 * The local analyst views: a DuckDB script, <data dir>/views.sql, that `npm start` writes (again at
 * every start, so it follows the code, and after each compaction run, so it follows the curated
 * partitions) for analysts querying the local files as they would query Athena (docs/data-model.md,
 * "Querying locally with DuckDB"):
 *
 *   events             every event once: the curated partitions plus the landing tail (sql/events-view.sql)
 *   events_tail        the landing tail alone (sql/events-tail-view.sql): events = curated_events + events_tail
 *   identities         every identity link once (sql/identities-view.sql)
 *   unique_events      events again, under the name analysts used before events held each event once
 *   landing_events, landing_identities, curated_events, curated_identities: the tables under them
 *
 * plus the Trino functions the SQL needs (json_extract_scalar, from_iso8601_timestamp), so the queries
 * of the data model run unchanged. The views read the files through globs when a query runs. DuckDB
 * refuses a view over a glob that matches no file ("No files found that match the pattern"): a table
 * with no file yet gets an empty view of the same columns instead; the server writes the script again
 * when a stream lands its first file and after each compaction run (lambdas/local/server.ts).
 */
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ARRIVAL_HOUR, curatedTable, EVENTS_TAIL_VIEW, landingTable, STREAM_NAMES, streamView, type StreamName } from '../contract/landing';
import type { AnalyticsViews } from '../ports';
import { TRINO_COMPAT_MACROS } from './duckdb-results-query';
import { catalogDir, CURATED_COLUMNS, curatedSelect, landingDir, landingSelect, readCompactionState, STREAM_COLUMNS } from './duckdb-stream-views';
import { renderEventsTailView, renderStreamView } from './sql/compaction';
import { renderCreateUniqueEventsView, UNIQUE_EVENTS_VIEW } from './sql/unique-events';

export const ANALYST_VIEWS_FILE = 'views.sql';

/** What a data directory holds, per stream: whether each table has a file, and the compacted hour. */
export interface StreamFiles {
  landing: boolean;
  curated: boolean;
  compactedThrough: string | undefined;
}

export function analystViewsScript(dataDir: string, streams: Record<StreamName, StreamFiles>): string {
  const table = (name: string, present: boolean, select: string) =>
    present
      ? `CREATE OR REPLACE VIEW ${name} AS ${select};`
      : `-- No ${name} file yet: an empty view until the first (npm start writes this file again then).\nCREATE OR REPLACE VIEW ${name} AS ${select};`;
  const stream = (s: StreamName) => {
    const files = streams[s];
    const tables = { curated: curatedTable(s), landing: landingTable(s) };
    return [
      table(
        tables.landing,
        files.landing,
        landingSelect(files.landing ? join(landingDir(dataDir, s), `${ARRIVAL_HOUR}=*`, '*.ndjson') : [], STREAM_COLUMNS[s]),
      ),
      table(
        tables.curated,
        files.curated,
        curatedSelect(files.curated ? join(catalogDir(dataDir, s), 'project_id=*', 'dt=*', '*.parquet') : [], CURATED_COLUMNS[s]),
      ),
      `CREATE OR REPLACE VIEW ${streamView(s)} AS ${renderStreamView(s, files.compactedThrough, tables)};`,
      ...(s === 'events' ? [`CREATE OR REPLACE VIEW ${EVENTS_TAIL_VIEW} AS ${renderEventsTailView(files.compactedThrough, tables)};`] : []),
    ];
  };
  return [
    `-- Tally's raw streams under ${dataDir}, as DuckDB views named like the Athena tables and views`,
    `-- (docs/data-model.md, "Querying locally with DuckDB"). Written by npm start; changes are overwritten.`,
    `-- Open with: duckdb -init ${join(dataDir, ANALYST_VIEWS_FILE)}`,
    ...TRINO_COMPAT_MACROS.map((macro) => `${macro};`),
    ...stream('events'),
    `${renderCreateUniqueEventsView(UNIQUE_EVENTS_VIEW, 'events')};`,
    ...stream('identities'),
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
    const entries = await Promise.all(
      STREAM_NAMES.map(async (s) => {
        const [landing, curated, state] = await Promise.all([
          hasFile(landingDir(this.dataDir, s), 1, '.ndjson'),
          hasFile(catalogDir(this.dataDir, s), 2, '.parquet'),
          readCompactionState(this.dataDir, s),
        ]);
        return [s, { landing, curated, compactedThrough: state.compactedThrough }] as const;
      }),
    );
    await writeFile(this.file, analystViewsScript(this.dataDir, Object.fromEntries(entries) as Record<StreamName, StreamFiles>));
  }

  async drop(): Promise<void> {
    await rm(this.file, { force: true });
  }
}

/** Whether dir holds a file ending in `extension` `depth` folders down (through symlinks), stopping at the first. */
async function hasFile(dir: string, depth: number, extension: string): Promise<boolean> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  if (depth === 0) return entries.some((name) => name.endsWith(extension));
  for (const name of entries) {
    if (await hasFile(join(dir, name), depth - 1, extension)) return true;
  }
  return false;
}
