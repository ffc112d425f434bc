/**
 * The incremental results job locally (issue 13; docs/identity-and-experiments.md, "Incremental
 * computation"): DuckDB keeps each experiment's state as Parquet files under the data directory,
 *
 *   <dataDir>/results-state/project_id=<p>/experiment_id=<e>/watermark.json (the committed watermark)
 *   <dataDir>/results-state/project_id=<p>/experiment_id=<e>/dt=<day of the slice's start>/slice-<lo>_<hi>.parquet
 *
 * and a run:
 *  1. reads the committed watermark (none: the empty state's, stateStartWatermark);
 *  2. summarises the next complete slice (nextSlice) from the landing files of its arrival hours
 *     (arrival_hour=, domain/arrival-hours.ts): COPY (results-summary.sql) TO a temporary file,
 *     renamed into place;
 *  3. commits the slice's end in watermark.json (written to a temporary file, renamed), only after 2;
 *  4. rolls up, once a day has closed (the watermark passed into a new day): the closed days' committed
 *     files and the previous base into a new generation (results-base.sql),
 *       <dataDir>/results-base/project_id=<p>/experiment_id=<e>/generation=<g>/base.parquet
 *     (a temporary file renamed into place), then commits it in commit.json beside the generations
 *     (renamed into place) with the run's set of metric sources, then deletes the rolled-up days and
 *     the previous generation. A base of another set of metric sources is not read: like the
 *     watermark of another set, it lacks the rows of the sources added, so the state is rebuilt from
 *     raw and its first roll-up replaces that base;
 *  5. counts from the committed base, the state files of the days from its boundary to the
 *     watermark's, and the events files of the arrival hours since the committed watermark
 *     (results-count-incremental.sql): the base plus the open day's slices, however old the experiment.
 * A failed 2 or 3 is logged and leaves the committed watermark as it was: 4 then counts from it, so
 * the results stay exact, and the next run summarises the slice again. A slice file whose commit
 * failed is read again later next to its rewrite; the summaries' aggregates are idempotent, so it
 * counts once. A commit lost or older than the base's resumes from the base's watermark (as on AWS).
 * Deleting the experiment's state and base directories rebuilds both from raw on the next run.
 *
 * Events files are selected by their arrival hour folder, as Athena's partition projection selects
 * them on AWS; the hour is received_at's, compared with the run's clock (the wall clock outside tests).
 * The roll-up's aggregates are idempotent, so a crash between the commit and the deletes (the days
 * rolled up still there) costs nothing: the next base starts from the new boundary. A failed roll-up
 * leaves the previous commit, which the count reads with the state days after it.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RESULTS_BASE, RESULTS_STATE, RESULTS_STATE_COLUMNS, RESULTS_STATE_PARTITIONS } from '../contract/results-state';
import { baseDue, baseFor, newGeneration, parseBaseCommit, startWatermark, type BaseCommit } from '../domain/results-base';
import { nextSlice, stateServes, type Slice } from '../domain/results-watermark';
import { FUNCTION_DIMENSION, METRICS_NAMESPACE, RESULTS_BASE_WRITE_FAILED, RESULTS_STATE_WRITE_FAILED } from '../contract/metrics';
import { errorFields, log } from '../logging/log';
import { emitMetric, functionName } from '../logging/metric';
import type { IncrementalCountRequest, IncrementalCountResult, IncrementalRun } from '../ports';
import { LOCAL_TABLES, readRows } from './duckdb-results-query';
import { eventsByArrivalViews, listDir, localViewSql } from './duckdb-stream-views';
import { EVENTS_BY_ARRIVAL_VIEW } from '../contract/landing';
import { arrivalHoursFor } from '../domain/arrival-hours';
import { renderResultsBase, renderResultsCountIncremental, renderResultsSummary, stateFromDt, stateStartWatermark } from './sql/render-incremental';
import { metricSourceSet, quoteLiteral, resultsCountParams, toCountResult } from './sql/render';

/** The state view's name ({{state}} locally). */
export const LOCAL_STATE_TABLE = 'tally_results_state';
/** The base view's name ({{base}} locally): the committed generation's file. */
export const LOCAL_BASE_TABLE = 'tally_results_base';

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
  /** Roll closed days up into the base (default true; false shows what the base saves: every slice file is read). */
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

/** The experiment's base directory (generations and commit.json), beside the state as on S3. */
export function baseDir(dataDir: string, projectId: string, experimentId: string): string {
  stateDir(dataDir, projectId, experimentId); // the same check of the IDs
  return join(dataDir, RESULTS_BASE.prefix, `project_id=${projectId}`, `experiment_id=${experimentId}`);
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
  const metricSources = metricSourceSet(request.metrics, request.cupedLookbackDays);
  // The base of another set of metric sources is not read either (domain/results-base.ts baseFor): the
  // state is rebuilt from raw for this set, and its next roll-up replaces that base.
  const dirs = { state: dir, base: baseDir(options.dataDir, request.projectId, request.experimentId) };
  await dropDayKeyedState(connection, dirs, request);
  const committed = await readCommitted(dir);
  const committedBase = await readBaseCommit(dirs.base);
  let base = baseFor(committedBase, metricSources);
  // The slices after the base, never before the base's own watermark, as on AWS (startWatermark): a
  // state commit lost or older than the base (watermark.json deleted) must not restart from the empty
  // state's watermark, whose slice would land on a day the base already covers and no run reads.
  const stateWatermark = committed?.metricSources === metricSources ? committed.watermark : undefined;
  const previousWatermark = startWatermark(stateWatermark, base, stateStartWatermark(request));
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
      const rolled = await rollUpBase(connection, request, dirs, { previous: base, committed: committedBase }, run.watermark, metricSources);
      run.compactedDays = rolled.days;
      base = rolled.base;
    } catch (err) {
      // Nothing is lost: the commit still names the previous base, and the next run rolls up again.
      log('warn', 'results base not rolled up; counting from the previous base (metric ResultsBaseWriteFailed)', {
        project_id: request.projectId,
        experiment_id: request.experimentId,
        ...errorFields(err),
      });
      emitMetric({ namespace: METRICS_NAMESPACE, name: RESULTS_BASE_WRITE_FAILED, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
    }
  }

  const tailFiles = await arrivalViews(connection, options.dataDir, arrivalHoursFor(run.watermark, OPEN_END));
  const state = await filesOf(dir, await stateDays(dir, base?.boundaryDt ?? stateFromDt(request), run.watermark.slice(0, 10)));
  await connection.run(stateViewSql(state));
  const read = base ? [...state, baseFile(dirs.base, base.generation)] : state;
  if (base) await connection.run(baseViewSql(baseFile(dirs.base, base.generation)));
  const rows = await readRows(
    connection,
    renderResultsCountIncremental(
      request,
      run.watermark,
      { ...LOCAL_TABLES, eventsByArrival: EVENTS_BY_ARRIVAL_VIEW, state: LOCAL_STATE_TABLE, base: LOCAL_BASE_TABLE },
      base,
    ),
  );
  if (options.rowsRead) rowsRead += await countRows(connection, EVENTS_BY_ARRIVAL_VIEW, tailFiles);
  run.stateRows = (await countRows(connection, LOCAL_STATE_TABLE, state.length)) + (base ? await countRows(connection, LOCAL_BASE_TABLE, 1) : 0);
  run.stateFiles = read.length;
  run.stateBytes = (await Promise.all(read.map(async (f) => (await stat(f)).size))).reduce((a, b) => a + b, 0);
  if (base) run.baseGeneration = base.generation;
  return { ...toCountResult(request, rows), ...(options.rowsRead ? { rowsRead } : {}), incremental: run };
}

/**
 * A local state written before goal rows were keyed by hour (issue 22: its files have `on_day`, not
 * `on_hour`) cannot give the hourly series: delete the experiment's state and base, so this run
 * rebuilds them from raw (docs/identity-and-experiments.md, "Rebuilding the state"). Reads only the
 * Parquet footers of the state's files and of the committed base. On AWS no state was ever written before the change.
 */
async function dropDayKeyedState(connection: DuckDBConnection, dirs: { state: string; base: string }, request: IncrementalCountRequest): Promise<void> {
  // The state's slices and the committed base (a generation no commit names is never read).
  const committedBase = await readBaseCommit(dirs.base);
  const files = [...(await parquetFilesUnder(dirs.state)), ...(committedBase ? [baseFile(dirs.base, committedBase.generation)] : [])];
  if (files.length === 0) return;
  let old: Array<Record<string, unknown>>;
  try {
    old = await readRows(
      connection,
      `SELECT file_name FROM parquet_schema([${files.map(quoteLiteral).join(', ')}]) GROUP BY file_name HAVING NOT bool_or(name = 'on_hour')`,
    );
  } catch {
    // A file deleted under us (another run rolled its day up): that run wrote the layout of today.
    return;
  }
  if (old.length === 0) return;
  log('info', 'results state written before hourly series: rebuilding it from raw', {
    project_id: request.projectId,
    experiment_id: request.experimentId,
    files: old.length,
  });
  await Promise.all([dirs.state, dirs.base].map((d) => rm(d, { recursive: true, force: true })));
}

async function parquetFilesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile() && e.name.endsWith('.parquet')).map((e) => join(e.parentPath, e.name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** The last arrival hour, as the tail's open end. */
const OPEN_END = '9999-12-31T23:59:59.999Z';

/**
 * Rolls the closed state days (before the watermark's day) up with the committed base into a new
 * generation (results-base.sql): COPY to a temporary file, renamed into place, then commit.json
 * (temporary file, renamed) names it, with the run's set of metric sources. Then the rolled-up days'
 * files and the generation the commit named before (the previous base, or a base of another set of
 * metric sources, which the run did not read) are deleted. Returns the days rolled up (0: no day closed since the
 * base).
 */
async function rollUpBase(
  connection: DuckDBConnection,
  request: IncrementalCountRequest,
  dirs: { state: string; base: string },
  bases: { previous: BaseCommit | undefined; committed: BaseCommit | undefined },
  watermark: string,
  metricSources: string,
): Promise<{ days: number; base: BaseCommit | undefined }> {
  const base = bases.previous;
  const due = baseDue(base, watermark, stateFromDt(request));
  if (!due) return { days: 0, base };
  const generation = newGeneration(request.now, randomUUID().replace(/-/g, ''));
  const closed = await stateDays(dirs.state, due.closedFromDt, due.closedToDt);
  await connection.run(stateViewSql((await filesOf(dirs.state, closed)).filter((f) => stateFileCommitted(basename(f), watermark))));
  if (base) await connection.run(baseViewSql(baseFile(dirs.base, base.generation)));
  const target = baseFile(dirs.base, generation);
  await mkdir(dirname(target), { recursive: true });
  const temporary = join(dirname(target), `.${randomUUID()}.parquet.tmp`);
  const sql = renderResultsBase(request, { previous: base, ...due, watermark, generation }, { state: LOCAL_STATE_TABLE, base: LOCAL_BASE_TABLE });
  await connection.run(`COPY (${sql}) TO ${quoteLiteral(temporary)} (FORMAT parquet, COMPRESSION zstd)`);
  await rename(temporary, target);
  const committed: BaseCommit = { generation, boundaryDt: due.boundaryDt, watermark, committedAt: new Date().toISOString(), metricSources };
  await writeJson(dirs.base, RESULTS_BASE.commit, committed);
  // What the commit no longer names. A run that listed them before the commit fails loudly and is
  // retried; it never counts from a half-deleted state (files are read whole or not at all).
  await Promise.all(closed.map((d) => rm(join(dirs.state, d), { recursive: true, force: true })));
  // The generation the commit named: the previous base, or one of another set of metric sources.
  if (bases.committed) await rm(dirname(baseFile(dirs.base, bases.committed.generation)), { recursive: true, force: true });
  return { days: closed.length, base: committed };
}

/** A state file counted at this watermark: a slice ending by it (or a merge of an older version's compaction). */
function stateFileCommitted(name: string, watermark: string): boolean {
  if (/^compact-.*\.parquet$/.test(name)) return true;
  const match = /^slice-\w+_(\w+)\.parquet$/.exec(name);
  return match !== null && match[1]! <= compact(watermark);
}

/** The file of a generation of the base, locally (one per generation). */
function baseFile(baseDir: string, generation: string): string {
  return join(baseDir, `generation=${generation}`, 'base.parquet');
}

async function readBaseCommit(baseDir: string): Promise<BaseCommit | undefined> {
  const path = join(baseDir, RESULTS_BASE.commit);
  try {
    return parseBaseCommit(await readFile(path, 'utf8'), path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
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
  const files = await arrivalViews(connection, options.dataDir, arrivalHoursFor(slice.lo, slice.hi));
  const sliceDir = join(dir, `dt=${slice.lo.slice(0, 10)}`);
  await mkdir(sliceDir, { recursive: true });
  const target = join(sliceDir, `slice-${compact(slice.lo)}_${compact(slice.hi)}.parquet`);
  const temporary = join(sliceDir, `.${randomUUID()}.parquet.tmp`);
  await connection.run(
    `COPY (${renderResultsSummary(request, slice, { eventsByArrival: EVENTS_BY_ARRIVAL_VIEW })}) TO ${quoteLiteral(temporary)} (FORMAT parquet, COMPRESSION zstd)`,
  );
  await rename(temporary, target);
  return options.rowsRead ? countRows(connection, EVENTS_BY_ARRIVAL_VIEW, files) : 0;
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
  await writeJson(dir, 'watermark.json', { watermark: committed.watermark, metric_sources: committed.metricSources });
}

/** The state's day folders (dt=<day>) from fromDt to toDt. */
async function stateDays(dir: string, fromDt: string, toDt: string): Promise<string[]> {
  return (await listDir(dir)).filter((d) => /^dt=\d{4}-\d{2}-\d{2}$/.test(d) && d.slice(3) >= fromDt && d.slice(3) <= toDt).sort();
}

/** The state files (committed or not; the queries keep slices ending by the watermark) of those days. */
async function filesOf(dir: string, days: string[]): Promise<string[]> {
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

/** Creates the session's events_by_arrival view over the landing hours `hours`; the number of files it reads. */
async function arrivalViews(connection: DuckDBConnection, dataDir: string, hours: { from: string; to: string }): Promise<number> {
  const views = await eventsByArrivalViews(dataDir, hours.from, hours.to);
  for (const view of views) await connection.run(localViewSql(view));
  return views.reduce((n, v) => n + ('landing' in v ? v.landing.length : 0), 0);
}

/** No rows, every column of the state (contract/results-state.ts) with its type. */
function emptyStateSql(): string {
  const cols = Object.entries(STATE_COLUMNS)
    .map(([col, type]) => `CAST(NULL AS ${type}) AS "${col}"`)
    .join(', ');
  return `SELECT ${cols} WHERE false`;
}

/**
 * Parquet files as a relation with every column of the state: UNION ALL BY NAME with the empty typed
 * relation, so a column that files written before it existed lack (the metric columns, the
 * breakdown columns platform, country and app_version) reads as NULL even when no file has it.
 */
function parquetSql(files: string[]): string {
  return `${emptyStateSql()} UNION ALL BY NAME SELECT * FROM read_parquet([${files.map(quoteLiteral).join(', ')}], hive_partitioning = false, union_by_name = true)`;
}

function stateViewSql(files: string[]): string {
  if (files.length === 0) return `CREATE OR REPLACE TEMP VIEW ${LOCAL_STATE_TABLE} AS ${emptyStateSql()}`;
  return `CREATE OR REPLACE TEMP VIEW ${LOCAL_STATE_TABLE} AS ${parquetSql(files)}`;
}

function baseViewSql(file: string): string {
  return `CREATE OR REPLACE TEMP VIEW ${LOCAL_BASE_TABLE} AS ${parquetSql([file])}`;
}

async function writeJson(dir: string, name: string, value: unknown): Promise<void> {
  await mkdir(dir, { recursive: true });
  const temporary = join(dir, `.${randomUUID()}.json.tmp`);
  await writeFile(temporary, JSON.stringify(value) + '\n');
  await rename(temporary, join(dir, name));
}

async function countRows(connection: DuckDBConnection, view: string, files: number): Promise<number> {
  if (files === 0) return 0;
  return Number((await readRows(connection, `SELECT count(*) AS n FROM ${view}`))[0]?.n ?? 0);
}

/** The loud side of a state write or commit that failed: the metric lib/alarms.ts alarms on. */
function stateWriteFailed(): void {
  emitMetric({ namespace: METRICS_NAMESPACE, name: RESULTS_STATE_WRITE_FAILED, dimensions: { [FUNCTION_DIMENSION]: functionName() } });
}
