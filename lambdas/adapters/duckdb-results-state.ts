/**
 * The incremental results job locally (issue 13; docs/identity-and-experiments.md, "Incremental
 * computation"): DuckDB keeps each experiment's state as Parquet files under the data directory,
 *
 *   <dataDir>/results-state/project_id=<p>/experiment_id=<e>/watermark.json (the committed watermark)
 *   <dataDir>/results-state/project_id=<p>/experiment_id=<e>/dt=<day of the slice's start>/slice-<lo>_<hi>.parquet
 *
 * and a run:
 *  1. reads the committed watermark (none: the empty state's, initialWatermark);
 *  2. summarises the next complete slice (nextSlice) from the events files modified since the
 *     watermark: COPY (results-summary.sql) TO a temporary file, renamed into place;
 *  3. commits the slice's end in watermark.json (written to a temporary file, renamed), only after 2;
 *  4. counts from the state files plus the events files modified since the committed watermark
 *     (results-count-incremental.sql).
 * A failed 2 or 3 is logged and leaves the committed watermark as it was: 4 then counts from it, so
 * the results stay exact, and the next run summarises the slice again. A slice file whose commit
 * failed is read again later next to its rewrite; the summaries' aggregates are idempotent, so it
 * counts once. Deleting the experiment's directory rebuilds the state from raw on the next run.
 *
 * Files are selected by modification time, compared with the run's clock (the job's clock is the
 * wall clock outside tests): an event is written to a file after it is received.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RESULTS_STATE, RESULTS_STATE_COLUMNS, RESULTS_STATE_PARTITIONS } from '../contract/results-state';
import { initialWatermark, nextSlice, stateServes, type Slice } from '../domain/results-watermark';
import { errorFields, log } from '../logging/log';
import type { IncrementalCountRequest, IncrementalCountResult, IncrementalRun } from '../ports';
import { EVENT_COLUMNS, LOCAL_TABLES, partitionFiles, readRows } from './duckdb-results-query';
import { renderResultsCountIncremental, renderResultsSummary, summaryDays } from './sql/render-incremental';
import { quoteLiteral, resultsCountParams, toCountResult } from './sql/render';

/** The state view's name ({{state}} locally). */
export const LOCAL_STATE_TABLE = 'tally_results_state';

/** The state's columns as DuckDB types (contract/results-state.ts; Glue declares the same). */
export const STATE_COLUMNS = Object.fromEntries(
  [...Object.entries(RESULTS_STATE_COLUMNS), ...RESULTS_STATE_PARTITIONS.map((c) => [c, 'string'] as const)].map(([c, t]) => [
    c,
    t === 'boolean' ? 'BOOLEAN' : 'VARCHAR',
  ]),
) as Record<string, 'VARCHAR' | 'BOOLEAN'>;

interface Committed {
  watermark: string;
}

export interface StateRunOptions {
  dataDir: string;
  allowanceMs: number;
  /** Count the rows of the events files read into rowsRead. */
  rowsRead: boolean;
}

/** The experiment's state directory. IDs were checked by partitionFiles' rule (no path characters). */
export function stateDir(dataDir: string, projectId: string, experimentId: string): string {
  for (const id of [projectId, experimentId]) {
    if (id === '' || /[/\\\0]/.test(id) || id === '.' || id === '..') throw new Error(`ID "${id}" cannot name a state directory`);
  }
  return join(dataDir, RESULTS_STATE.prefix, `project_id=${projectId}`, `experiment_id=${experimentId}`);
}

const compact = (iso: string) => iso.replace(/[-:.]/g, '');

export async function countIncrementalDuckDb(
  connection: DuckDBConnection,
  request: IncrementalCountRequest,
  options: StateRunOptions,
): Promise<IncrementalCountResult> {
  const dir = stateDir(options.dataDir, request.projectId, request.experimentId);
  const params = resultsCountParams(request);
  const previousWatermark = (await readCommitted(dir))?.watermark ?? initialWatermark(request.from);
  const run: IncrementalRun = { previousWatermark, watermark: previousWatermark, committed: false, fullRecompute: false };
  if (!stateServes(previousWatermark, params.to_ts as string)) {
    throw new StateCannotServe(previousWatermark, params.to_ts as string);
  }
  let rowsRead = 0;
  const slice = nextSlice({ watermark: previousWatermark, now: request.now, to: params.to_ts as string, allowanceMs: options.allowanceMs });
  if (slice) {
    try {
      rowsRead += await writeSlice(connection, request, slice, dir, options);
      await commit(dir, { watermark: slice.hi });
      run.watermark = slice.hi;
      run.committed = true;
    } catch (err) {
      // The results stay exact: the count below reads from the watermark still committed.
      log('warn', 'results state not advanced; counting from the previous watermark', {
        project_id: request.projectId,
        experiment_id: request.experimentId,
        ...errorFields(err),
      });
    }
  }

  const tailFiles = await eventFilesSince(options.dataDir, request.projectId, params.from_dt as string, params.to_dt as string, run.watermark);
  await connection.run(eventsViewSql(tailFiles));
  await connection.run(stateViewSql(await stateFiles(dir)));
  const rows = await readRows(connection, renderResultsCountIncremental(request, run.watermark, { ...LOCAL_TABLES, state: LOCAL_STATE_TABLE }));
  if (options.rowsRead) rowsRead += await countRows(connection, LOCAL_TABLES.events, tailFiles.length);
  run.stateRows = await countRows(connection, LOCAL_STATE_TABLE, 1);
  return { ...toCountResult(request, rows), ...(options.rowsRead ? { rowsRead } : {}), incremental: run };
}

/** The committed watermark is after the run's end (a stop raced a running computation). */
export class StateCannotServe extends Error {
  override name = 'StateCannotServe';
  constructor(
    readonly watermark: string,
    to: string,
  ) {
    super(`The results state reaches ${watermark}, after the run's end ${to}: counting from raw`);
  }
}

async function writeSlice(
  connection: DuckDBConnection,
  request: IncrementalCountRequest,
  slice: Slice,
  dir: string,
  options: StateRunOptions,
): Promise<number> {
  const { fromDt, toDt } = summaryDays(request, slice);
  const files = await eventFilesSince(options.dataDir, request.projectId, fromDt, toDt, slice.lo);
  await connection.run(eventsViewSql(files));
  const sliceDir = join(dir, `dt=${slice.lo.slice(0, 10)}`);
  await mkdir(sliceDir, { recursive: true });
  const target = join(sliceDir, `slice-${compact(slice.lo)}_${compact(slice.hi)}.parquet`);
  const temporary = join(sliceDir, `.${randomUUID()}.parquet.tmp`);
  await connection.run(`COPY (${renderResultsSummary(request, slice, LOCAL_TABLES)}) TO ${quoteLiteral(temporary)} (FORMAT parquet, COMPRESSION zstd)`);
  await rename(temporary, target);
  return options.rowsRead ? countRows(connection, LOCAL_TABLES.events, files.length) : 0;
}

async function readCommitted(dir: string): Promise<Committed | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, 'watermark.json'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<Committed>;
  if (typeof parsed.watermark !== 'string' || !Number.isFinite(Date.parse(parsed.watermark)))
    throw new Error(`${join(dir, 'watermark.json')} holds no watermark`);
  return { watermark: parsed.watermark };
}

async function commit(dir: string, committed: Committed): Promise<void> {
  const temporary = join(dir, `.${randomUUID()}.watermark.tmp`);
  await writeFile(temporary, JSON.stringify(committed) + '\n');
  await rename(temporary, join(dir, 'watermark.json'));
}

/** Every committed-or-not slice file of the experiment (the count keeps those ending by the watermark). */
async function stateFiles(dir: string): Promise<string[]> {
  const days = (await listDir(dir)).filter((d) => d.startsWith('dt=')).sort();
  const files = await Promise.all(
    days.map(async (d) =>
      (await listDir(join(dir, d)))
        .filter((f) => /^slice-.*\.parquet$/.test(f))
        .sort()
        .map((f) => join(dir, d, f)),
    ),
  );
  return files.flat();
}

/** The events files of the days fromDt..toDt last modified at or after `since`, with their modification times. */
async function eventFilesSince(
  dataDir: string,
  projectId: string,
  fromDt: string,
  toDt: string,
  since: string,
): Promise<Array<{ path: string; modified: string }>> {
  const sinceMs = Date.parse(since);
  const files = await partitionFiles(join(dataDir, 'events'), projectId, fromDt, toDt);
  const stats = await Promise.all(files.map(async (path) => ({ path, mtimeMs: (await stat(path)).mtimeMs })));
  return stats.filter((f) => f.mtimeMs >= sinceMs).map((f) => ({ path: f.path, modified: new Date(Math.floor(f.mtimeMs)).toISOString() }));
}

/**
 * The events view with Athena's "$file_modified_time" pseudo column (each file's modification time),
 * so the summary's file filter is the same text in both engines.
 */
export function eventsViewSql(files: Array<{ path: string; modified: string }>): string {
  const name = LOCAL_TABLES.events;
  const base = [...Object.entries(EVENT_COLUMNS), ['project_id', 'VARCHAR'], ['dt', 'VARCHAR']] as Array<[string, string]>;
  if (files.length === 0) {
    const cols = [...base.map(([col, type]) => `CAST(NULL AS ${type}) AS "${col}"`), 'CAST(NULL AS TIMESTAMPTZ) AS "$file_modified_time"'].join(', ');
    return `CREATE OR REPLACE TEMP VIEW ${name} AS SELECT ${cols} WHERE false`;
  }
  const struct = Object.entries(EVENT_COLUMNS)
    .map(([col, type]) => `${quoteLiteral(col)}: ${quoteLiteral(type)}`)
    .join(', ');
  const modified = files.map((f) => `(${quoteLiteral(f.path)}, CAST(${quoteLiteral(f.modified)} AS TIMESTAMPTZ))`).join(', ');
  return `CREATE OR REPLACE TEMP VIEW ${name} AS SELECT ${base.map(([col]) => `e."${col}"`).join(', ')}, f.modified AS "$file_modified_time"
  FROM read_json(
    [${files.map((f) => quoteLiteral(f.path)).join(', ')}],
    format = 'newline_delimited',
    columns = {${struct}},
    hive_partitioning = true,
    hive_types = {'project_id': 'VARCHAR', 'dt': 'VARCHAR'},
    hive_types_autocast = false,
    filename = true,
    ignore_errors = true
  ) e
  JOIN (VALUES ${modified}) AS f (path, modified) ON e.filename = f.path`;
}

function stateViewSql(files: string[]): string {
  if (files.length === 0) {
    const cols = Object.entries(STATE_COLUMNS)
      .map(([col, type]) => `CAST(NULL AS ${type}) AS "${col}"`)
      .join(', ');
    return `CREATE OR REPLACE TEMP VIEW ${LOCAL_STATE_TABLE} AS SELECT ${cols} WHERE false`;
  }
  return `CREATE OR REPLACE TEMP VIEW ${LOCAL_STATE_TABLE} AS SELECT * FROM read_parquet([${files.map(quoteLiteral).join(', ')}], hive_partitioning = false)`;
}

async function countRows(connection: DuckDBConnection, view: string, files: number): Promise<number> {
  if (files === 0) return 0;
  return Number((await readRows(connection, `SELECT count(*) AS n FROM ${view}`))[0]?.n ?? 0);
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    // Missing, or not a directory (nothing of the state's): no files.
    if (['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}
