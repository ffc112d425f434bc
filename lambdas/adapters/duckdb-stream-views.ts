/**
 * The raw streams locally, as the views Athena reads on AWS (docs/decisions/columnar-events.md): for a
 * stream, landing_<stream> over the landing NDJSON files not yet compacted, curated_<stream> over the
 * Parquet files of the curated partitions' current generations (through the catalog's symlinks,
 * contract/landing.ts), and the readers' view <stream> joining them with the same text Athena's view
 * runs (sql/compaction.ts renderStreamView). The files are listed here, in Node, so a query opens
 * only the partitions of its project and days and the landing hours after the compaction state's.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ARRIVAL_HOUR,
  COMPACTION_STATE_PREFIX,
  CURATED_CATALOG_DIR,
  curatedTable,
  EVENTS_BY_ARRIVAL_VIEW,
  EVENTS_TAIL_VIEW,
  LANDING_PREFIX,
  landingTable,
  CURATED_ONLY_COLUMNS,
  streamView,
  type StreamName,
} from '../contract/landing';
import { EMPTY_COMPACTION_STATE, parseCompactionState, type CompactionState } from '../domain/compaction-state';
import { EVENT_COLUMNS, IDENTITY_COLUMNS, type DuckType } from './duckdb-columns';
import type { LocalView } from './duckdb-local';
import { renderEventsByArrivalView, renderEventsTailView, renderStreamView } from './sql/compaction';
import { quoteLiteral } from './sql/render';

/** Each stream's data columns (without project_id, a partition column of the curated tables). */
export const STREAM_COLUMNS: Record<StreamName, Record<string, DuckType>> = { events: EVENT_COLUMNS, identities: IDENTITY_COLUMNS };

/** Each curated table's data columns: its stream's, then those only the curated table holds (CURATED_ONLY_COLUMNS, text). */
export const CURATED_COLUMNS: Record<StreamName, Record<string, DuckType>> = {
  events: curatedColumns('events'),
  identities: curatedColumns('identities'),
};

function curatedColumns(stream: StreamName): Record<string, DuckType> {
  return { ...STREAM_COLUMNS[stream], ...Object.fromEntries(CURATED_ONLY_COLUMNS[stream].map((c) => [c, 'VARCHAR' as const])) };
}

/** The directory of a stream's landing hours, and of one hour. */
export const landingDir = (dataDir: string, stream: StreamName) => join(dataDir, LANDING_PREFIX, stream);
export const landingHourDir = (dataDir: string, stream: StreamName, hour: string) => join(landingDir(dataDir, stream), `${ARRIVAL_HOUR}=${hour}`);
/** The catalog's directory of a curated table: project_id=<id>/dt=<day> symlinks to generations. */
export const catalogDir = (dataDir: string, stream: StreamName) => join(dataDir, CURATED_CATALOG_DIR, curatedTable(stream));
export const compactionStateFile = (dataDir: string, stream: StreamName) => join(dataDir, COMPACTION_STATE_PREFIX, `${stream}.json`);

/** Which days of which project a query reads: every day when fromDt/toDt are absent. */
export interface StreamScope {
  projectId: string;
  fromDt?: string;
  toDt?: string;
}

/** A project ID that can name a partition directory (never a path). */
export function checkProjectId(projectId: string): void {
  if (projectId === '' || /[/\\\0]/.test(projectId) || projectId === '.' || projectId === '..') {
    throw new Error(`Project ID "${projectId}" cannot name a partition directory`);
  }
}

export async function readCompactionState(dataDir: string, stream: StreamName): Promise<CompactionState> {
  const file = compactionStateFile(dataDir, stream);
  try {
    return parseCompactionState(await readFile(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_COMPACTION_STATE;
    throw err;
  }
}

/** The landing hours of a stream with their files (sorted), optionally only those `keep` accepts. */
export async function landingHourFiles(dataDir: string, stream: StreamName, keep: (hour: string) => boolean = () => true): Promise<Map<string, string[]>> {
  const prefix = `${ARRIVAL_HOUR}=`;
  const hours = (await listDir(landingDir(dataDir, stream)))
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length))
    .filter(keep)
    .sort();
  const entries = await Promise.all(
    hours.map(async (hour) => {
      const dir = landingHourDir(dataDir, stream, hour);
      const files = (await listDir(dir)).filter((f) => f.endsWith('.ndjson')).sort();
      return [hour, files.map((f) => join(dir, f))] as const;
    }),
  );
  return new Map(entries.filter(([, files]) => files.length > 0));
}

/** The Parquet files of a project's curated partitions (days fromDt..toDt), at their current generations. */
export async function curatedFiles(dataDir: string, stream: StreamName, scope: StreamScope): Promise<string[]> {
  checkProjectId(scope.projectId);
  const projectDir = join(catalogDir(dataDir, stream), `project_id=${scope.projectId}`);
  const days = (await listDir(projectDir))
    .filter((name) => /^dt=\d{4}-\d{2}-\d{2}$/.test(name))
    .map((name) => name.slice(3))
    .filter((dt) => (scope.fromDt === undefined || dt >= scope.fromDt) && (scope.toDt === undefined || dt <= scope.toDt))
    .sort();
  const files = await Promise.all(
    days.map(async (dt) => {
      const dir = join(projectDir, `dt=${dt}`);
      return (await listDir(dir))
        .filter((f) => f.endsWith('.parquet'))
        .sort()
        .map((f) => join(dir, f));
    }),
  );
  return files.flat();
}

/**
 * A stream's views for a query of one project: the curated files of its days, the landing hours
 * after the compaction state's (every project's: the view filters), the readers' view, and for the
 * events the events_tail view (the landing part of the readers' view alone, which insights read).
 */
export async function streamViews(dataDir: string, stream: StreamName, scope: StreamScope): Promise<LocalView[]> {
  const { compactedThrough } = await readCompactionState(dataDir, stream);
  const [curated, tail] = await Promise.all([
    curatedFiles(dataDir, stream, scope),
    landingHourFiles(dataDir, stream, (hour) => compactedThrough === undefined || hour > compactedThrough),
  ]);
  const tables = { curated: curatedTable(stream), landing: landingTable(stream) };
  return [
    { name: tables.curated, parquet: curated, columns: CURATED_COLUMNS[stream] },
    { name: tables.landing, landing: [...tail.values()].flat(), columns: STREAM_COLUMNS[stream] },
    { name: streamView(stream), sql: renderStreamView(stream, compactedThrough, tables) },
    ...(stream === 'events' ? [{ name: EVENTS_TAIL_VIEW, sql: renderEventsTailView(compactedThrough, tables) }] : []),
  ];
}

/** The events of landing hours `from`..`to` (inclusive) as the results job's events_by_arrival view. */
export async function eventsByArrivalViews(dataDir: string, from: string, to: string): Promise<LocalView[]> {
  const files = await landingHourFiles(dataDir, 'events', (hour) => hour >= from && hour <= to);
  return [
    { name: landingTable('events'), landing: [...files.values()].flat(), columns: EVENT_COLUMNS },
    { name: EVENTS_BY_ARRIVAL_VIEW, sql: renderEventsByArrivalView({ landing: landingTable('events') }) },
  ];
}

/** The statement creating a session's view. */
export function localViewSql(view: LocalView): string {
  if ('sql' in view) return `CREATE OR REPLACE TEMP VIEW ${view.name} AS ${view.sql}`;
  if ('landing' in view) return `CREATE OR REPLACE TEMP VIEW ${view.name} AS ${landingSelect(view.landing, view.columns)}`;
  return `CREATE OR REPLACE TEMP VIEW ${view.name} AS ${curatedSelect(view.parquet, view.columns)}`;
}

const typed = (columns: Record<string, DuckType>) => Object.entries(columns);

/** Landing NDJSON: the columns, project_id, and arrival_hour from the path; no file, no row. */
export function landingSelect(files: string[] | string, columns: Record<string, DuckType>): string {
  const all: Record<string, DuckType> = { ...columns, project_id: 'VARCHAR' };
  if (files.length === 0) return emptySelect([...typed(all), [ARRIVAL_HOUR, 'VARCHAR']]);
  const struct = typed(all)
    .map(([col, type]) => `${quoteLiteral(col)}: ${quoteLiteral(type)}`)
    .join(', ');
  // ignore_errors: a line that is not a JSON object (or one being appended while read) is skipped,
  // as Athena's JSON SerDe is told to skip it (ignore.malformed.json), not the whole query failed.
  return `SELECT ${[...Object.keys(all), ARRIVAL_HOUR].map((c) => `"${c}"`).join(', ')} FROM read_json(
    ${typeof files === 'string' ? quoteLiteral(files) : `[${files.map(quoteLiteral).join(', ')}]`},
    format = 'newline_delimited',
    columns = {${struct}},
    hive_partitioning = true,
    hive_types = {'${ARRIVAL_HOUR}': 'VARCHAR'},
    hive_types_autocast = false,
    ignore_errors = true
  )`;
}

/** Curated Parquet: the columns (cast to their types: Parquet keeps JSON as text), then project_id and dt from the path. */
export function curatedSelect(files: string[] | string, columns: Record<string, DuckType>): string {
  const all: Array<[string, DuckType]> = [...typed(columns), ['project_id', 'VARCHAR'], ['dt', 'VARCHAR']];
  if (files.length === 0) return emptySelect(all);
  return `SELECT ${all.map(([col, type]) => `CAST("${col}" AS ${type}) AS "${col}"`).join(', ')} FROM read_parquet(
    ${typeof files === 'string' ? quoteLiteral(files) : `[${files.map(quoteLiteral).join(', ')}]`},
    hive_partitioning = true,
    hive_types = {'project_id': 'VARCHAR', 'dt': 'VARCHAR'},
    hive_types_autocast = false
  )`;
}

function emptySelect(columns: Array<[string, DuckType | 'VARCHAR']>): string {
  return `SELECT ${columns.map(([col, type]) => `CAST(NULL AS ${type}) AS "${col}"`).join(', ')} WHERE false`;
}

/** A directory's entries; none when it is missing or not a directory. */
export async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if (['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}

/** Whether any file backs the views (no file: a query can return no row, so need not run). */
export function hasRows(views: LocalView[]): boolean {
  return views.some((v) => ('landing' in v && v.landing.length > 0) || ('parquet' in v && v.parquet.length > 0));
}
