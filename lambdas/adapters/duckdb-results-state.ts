/**
 * The incremental results job locally (issue 13; docs/identity-and-experiments.md, "Incremental
 * computation"): DuckDB keeps each experiment's state as Parquet files under the data directory,
 *
 *   <dataDir>/results-state/project_id=<p>/experiment_id=<e>/watermark.json (the committed watermark)
 *   <dataDir>/results-state/project_id=<p>/experiment_id=<e>/dt=<day of the slice's start>/slice-<lo>_<hi>.parquet
 *
 * and a run:
 *  1. reads the committed watermark (none: the empty state's, initialWatermark);
 *  2. summarises the next complete slice (nextSlice) from the events files of its arrival hours
 *     (received=, contract/arrival-partition.ts): COPY (results-summary.sql) TO a temporary file,
 *     renamed into place;
 *  3. commits the slice's end in watermark.json (written to a temporary file, renamed), only after 2;
 *  4. compacts: merges the committed files of each closed day (before the watermark's day) into one
 *     compact-*.parquet (renamed into place, then the merged files deleted), so the state files read
 *     per run stay flat over a long experiment;
 *  5. counts from the state files of the days its slices can start on plus the events files of the
 *     arrival hours since the committed watermark (results-count-incremental.sql).
 * A failed 2 or 3 is logged and leaves the committed watermark as it was: 4 then counts from it, so
 * the results stay exact, and the next run summarises the slice again. A slice file whose commit
 * failed is read again later next to its rewrite; the summaries' aggregates are idempotent, so it
 * counts once. Deleting the experiment's directory rebuilds the state from raw on the next run.
 *
 * Events files are selected by their arrival hour folder, as Athena's partition projection selects
 * them on AWS; the hour is received_at's, compared with the run's clock (the wall clock outside tests).
 * Compaction re-aggregates rows by the summary's grouping (min first_key and first_at, max last_at):
 * the aggregates are idempotent, so a merge read next to its inputs (a crash between the rename and
 * the deletes) counts once.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RESULTS_STATE, RESULTS_STATE_COLUMNS, RESULTS_STATE_PARTITIONS } from '../contract/results-state';
import { initialWatermark, nextSlice, stateServes, type Slice } from '../domain/results-watermark';
import { FUNCTION_DIMENSION, METRICS_NAMESPACE, RESULTS_STATE_WRITE_FAILED } from '../contract/metrics';
import { errorFields, log } from '../logging/log';
import { emitMetric, functionName } from '../logging/metric';
import type { IncrementalCountRequest, IncrementalCountResult, IncrementalRun } from '../ports';
import { EVENT_COLUMNS, LOCAL_TABLES, partitionFiles, readRows } from './duckdb-results-query';
import { ARRIVAL_PARTITION, arrivalHour } from '../contract/arrival-partition';
import { renderResultsCountIncremental, renderResultsSummary, stateFromDt, summaryDays } from './sql/render-incremental';
import { metricSourceSet, quoteLiteral, resultsCountParams, toCountResult } from './sql/render';

/** The state view's name ({{state}} locally). */
export const LOCAL_STATE_TABLE = 'tally_results_state';

/** The state's columns as DuckDB types (contract/results-state.ts; Glue declares the same). */
export const STATE_COLUMNS = Object.fromEntries(
  [...Object.entries(RESULTS_STATE_COLUMNS), ...RESULTS_STATE_PARTITIONS.map((c) => [c, 'string'] as const)].map(([c, t]) => [
    c,
    t === 'boolean' ? 'BOOLEAN' : t === 'double' ? 'DOUBLE' : 'VARCHAR',
  ]),
) as Record<string, 'VARCHAR' | 'BOOLEAN' | 'DOUBLE'>;

/**
 * watermark.json: the committed watermark and the set of metric sources its slices summarise
 * (render.ts metricSourceSet; absent in a commit written before metrics existed: the empty set). A
 * run for another set starts from the empty state's watermark (see countIncrementalDuckDb).
 */
interface Committed {
  watermark: string;
  metricSources: string;
}

export interface StateRunOptions {
  dataDir: string;
  allowanceMs: number;
  /** Merge closed days' slice files (default true; false shows what compaction saves). */
  compaction?: boolean;
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
  // A state committed for another set of metric sources lacks the rows of the new ones: start again
  // from the empty state's watermark (the slices already there are read next to the rebuild: their
  // enrollment rows are idempotent, their metric rows deduplicated by event, those of sources no
  // longer asked for left out by the slots).
  const metricSources = metricSourceSet(request.metrics);
  const committed = await readCommitted(dir);
  const previousWatermark = committed?.metricSources === metricSources ? committed.watermark : initialWatermark(request.from);
  const run: IncrementalRun = { previousWatermark, watermark: previousWatermark, committed: false, fullRecompute: false };
  if (!stateServes(previousWatermark, params.to_ts as string)) {
    throw new StateCannotServe(previousWatermark, params.to_ts as string);
  }
  let rowsRead = 0;
  const slice = nextSlice({ watermark: previousWatermark, now: request.now, to: params.to_ts as string, allowanceMs: options.allowanceMs });
  if (slice) {
    try {
      rowsRead += await writeSlice(connection, request, slice, dir, options);
      await commit(dir, { watermark: slice.hi, metricSources });
      run.watermark = slice.hi;
      run.committed = true;
    } catch (err) {
      // The results stay exact: the count below reads from the watermark still committed.
      log('warn', 'results state not advanced; counting from the previous watermark (metric ResultsStateWriteFailed)', {
        project_id: request.projectId,
        experiment_id: request.experimentId,
        ...errorFields(err),
      });
      stateWriteFailed();
    }
  }

  if (run.committed && options.compaction !== false) {
    try {
      run.compactedDays = await compactClosedDays(connection, dir, run.watermark);
    } catch (err) {
      // Nothing is lost: the slices stay, and the next run merges them again.
      log('warn', 'results state not compacted (metric ResultsStateWriteFailed)', {
        project_id: request.projectId,
        experiment_id: request.experimentId,
        ...errorFields(err),
      });
      stateWriteFailed();
    }
  }

  const tailFiles = await partitionFiles(join(options.dataDir, 'events'), request.projectId, params.from_dt as string, params.to_dt as string, {
    from: arrivalHour(run.watermark),
    to: OPEN_HOUR,
  });
  await connection.run(eventsViewSql(tailFiles));
  const state = await stateFiles(dir, stateFromDt(request), run.watermark.slice(0, 10));
  await connection.run(stateViewSql(state));
  const rows = await readRows(
    connection,
    renderResultsCountIncremental(request, run.watermark, { ...LOCAL_TABLES, eventsByArrival: LOCAL_TABLES.events, state: LOCAL_STATE_TABLE }),
  );
  if (options.rowsRead) rowsRead += await countRows(connection, LOCAL_TABLES.events, tailFiles.length);
  run.stateRows = await countRows(connection, LOCAL_STATE_TABLE, 1);
  run.stateFiles = state.length;
  run.stateBytes = (await Promise.all(state.map(async (f) => (await stat(f)).size))).reduce((a, b) => a + b, 0);
  return { ...toCountResult(request, rows), ...(options.rowsRead ? { rowsRead } : {}), incremental: run };
}

/** The last arrival hour, as the tail's open end. */
const OPEN_HOUR = '9999-12-31-23';

/** The state's grouping: the summary's (results-summary.sql GROUP BY), metric rows per source and event. */
const GROUP_COLUMNS = ['sent_user_id', 'variant', 'is_goal', 'on_day', 'pending_key', 'metric_source', 'event_key', 'project_id', 'experiment_id', 'dt'];

/**
 * Merges each closed day's committed state files (slice_hi at or before the watermark) into one,
 * re-aggregated by the summary's grouping. Returns the number of days merged.
 */
async function compactClosedDays(connection: DuckDBConnection, dir: string, watermark: string): Promise<number> {
  const open = watermark.slice(0, 10);
  let merged = 0;
  for (const d of (await listDir(dir)).filter((name) => /^dt=\d{4}-\d{2}-\d{2}$/.test(name) && name.slice(3) < open).sort()) {
    const dayDir = join(dir, d);
    const files = (await listDir(dayDir)).filter((f) => stateFileCommitted(f, watermark)).sort();
    if (files.length < 2) continue;
    const inputs = files.map((f) => join(dayDir, f));
    const temporary = join(dayDir, `.${randomUUID()}.parquet.tmp`);
    // A metric row keeps the value of the copy received first, as the count does.
    const select = [
      ...GROUP_COLUMNS.slice(0, 5),
      'min(first_key) AS first_key',
      'min(first_at) AS first_at',
      'max(last_at) AS last_at',
      'min(slice_lo) AS slice_lo',
      'max(slice_hi) AS slice_hi',
      'metric_source',
      'event_key',
      'arg_min(metric_value, first_key) AS metric_value',
      'CAST(NULL AS VARCHAR) AS metric_sources',
      ...GROUP_COLUMNS.slice(7),
    ];
    await connection.run(
      `COPY (SELECT ${select.join(', ')} FROM read_parquet([${inputs.map(quoteLiteral).join(', ')}], hive_partitioning = false, union_by_name = true)
        GROUP BY ${GROUP_COLUMNS.join(', ')}) TO ${quoteLiteral(temporary)} (FORMAT parquet, COMPRESSION zstd)`,
    );
    await rename(temporary, join(dayDir, `compact-${randomUUID()}.parquet`));
    await Promise.all(inputs.map((f) => unlink(f)));
    merged++;
  }
  return merged;
}

/** A state file counted at this watermark: a compacted file, or a slice ending by it. */
function stateFileCommitted(name: string, watermark: string): boolean {
  if (/^compact-.*\.parquet$/.test(name)) return true;
  const match = /^slice-\w+_(\w+)\.parquet$/.exec(name);
  return match !== null && match[1]! <= compact(watermark);
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
  const files = await partitionFiles(join(options.dataDir, 'events'), request.projectId, fromDt, toDt, {
    from: arrivalHour(slice.lo),
    to: arrivalHour(slice.hi),
  });
  await connection.run(eventsViewSql(files));
  const sliceDir = join(dir, `dt=${slice.lo.slice(0, 10)}`);
  await mkdir(sliceDir, { recursive: true });
  const target = join(sliceDir, `slice-${compact(slice.lo)}_${compact(slice.hi)}.parquet`);
  const temporary = join(sliceDir, `.${randomUUID()}.parquet.tmp`);
  await connection.run(
    `COPY (${renderResultsSummary(request, slice, { eventsByArrival: LOCAL_TABLES.events })}) TO ${quoteLiteral(temporary)} (FORMAT parquet, COMPRESSION zstd)`,
  );
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
  const parsed = JSON.parse(text) as { watermark?: unknown; metric_sources?: unknown };
  if (typeof parsed.watermark !== 'string' || !Number.isFinite(Date.parse(parsed.watermark)))
    throw new Error(`${join(dir, 'watermark.json')} holds no watermark`);
  return { watermark: parsed.watermark, metricSources: typeof parsed.metric_sources === 'string' ? parsed.metric_sources : '[]' };
}

async function commit(dir: string, committed: Committed): Promise<void> {
  const temporary = join(dir, `.${randomUUID()}.watermark.tmp`);
  await writeFile(temporary, JSON.stringify({ watermark: committed.watermark, metric_sources: committed.metricSources }) + '\n');
  await rename(temporary, join(dir, 'watermark.json'));
}

/**
 * The state files (committed or not; the count keeps slices ending by the watermark) of the days
 * fromDt..toDt, the days the experiment's slices can start on up to the watermark's.
 */
async function stateFiles(dir: string, fromDt: string, toDt: string): Promise<string[]> {
  const days = (await listDir(dir)).filter((d) => /^dt=\d{4}-\d{2}-\d{2}$/.test(d) && d.slice(3) >= fromDt && d.slice(3) <= toDt).sort();
  const files = await Promise.all(
    days.map(async (d) =>
      (await listDir(join(dir, d)))
        .filter((f) => /^(slice|compact)-.*\.parquet$/.test(f))
        .sort()
        .map((f) => join(dir, d, f)),
    ),
  );
  return files.flat();
}

/**
 * The events view over the files a query reads: the raw columns and the partition columns from the
 * path (project_id, dt and the arrival hour), as tally.events_by_arrival declares them.
 */
export function eventsViewSql(files: string[]): string {
  const name = LOCAL_TABLES.events;
  const base = [...Object.entries(EVENT_COLUMNS), ['project_id', 'VARCHAR'], ['dt', 'VARCHAR'], [ARRIVAL_PARTITION, 'VARCHAR']] as Array<[string, string]>;
  if (files.length === 0) {
    const cols = base.map(([col, type]) => `CAST(NULL AS ${type}) AS "${col}"`).join(', ');
    return `CREATE OR REPLACE TEMP VIEW ${name} AS SELECT ${cols} WHERE false`;
  }
  const struct = Object.entries(EVENT_COLUMNS)
    .map(([col, type]) => `${quoteLiteral(col)}: ${quoteLiteral(type)}`)
    .join(', ');
  return `CREATE OR REPLACE TEMP VIEW ${name} AS SELECT ${base.map(([col]) => `"${col}"`).join(', ')}
  FROM read_json(
    [${files.map(quoteLiteral).join(', ')}],
    format = 'newline_delimited',
    columns = {${struct}},
    hive_partitioning = true,
    hive_types = {'project_id': 'VARCHAR', 'dt': 'VARCHAR', '${ARRIVAL_PARTITION}': 'VARCHAR'},
    hive_types_autocast = false,
    ignore_errors = true
  )`;
}

function stateViewSql(files: string[]): string {
  if (files.length === 0) {
    const cols = Object.entries(STATE_COLUMNS)
      .map(([col, type]) => `CAST(NULL AS ${type}) AS "${col}"`)
      .join(', ');
    return `CREATE OR REPLACE TEMP VIEW ${LOCAL_STATE_TABLE} AS SELECT ${cols} WHERE false`;
  }
  // union_by_name: files written before the metric columns existed read them as NULL.
  return `CREATE OR REPLACE TEMP VIEW ${LOCAL_STATE_TABLE} AS SELECT * FROM read_parquet([${files.map(quoteLiteral).join(', ')}], hive_partitioning = false, union_by_name = true)`;
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

/** The loud side of a state write or commit that failed: the metric lib/alarms.ts alarms on. */
function stateWriteFailed(): void {
  emitMetric({ namespace: METRICS_NAMESPACE, name: RESULTS_STATE_WRITE_FAILED, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
}
