/**
 * Renders the incremental results job's two queries (issue 13) for both engines, like render.ts does
 * for the full count (which stays the reference: renderResultsCount):
 *  - renderResultsSummary: one slice of raw events (received_at in [lo, hi)) as state rows
 *    (results-summary.sql), for DuckDB's COPY ... TO Parquet and Athena's INSERT INTO;
 *  - renderResultsCountIncremental: the counts from the state plus the raw events received since the
 *    committed watermark (`WITH tail AS (<summary>)` + results-count-incremental.sql);
 *  - renderResultsBase: the closed state days rolled up with the previous base (results-base.sql),
 *    for DuckDB's COPY ... TO Parquet and (renderResultsBaseInsert) Athena's INSERT INTO a generation;
 *  - on AWS only (locally the watermark is a file): renderResultsStateInsert (INSERT INTO the state
 *    table + the summary), renderResultsCommit (the slice's marker row) and renderResultsWatermark.
 * Pure; the same text for both engines except for the table names.
 */
import { arrivalHoursFor } from '../../domain/arrival-hours';
import { RESULTS_STATE_COLUMNS } from '../../contract/results-state';
import type { BaseCommit } from '../../domain/results-base';
import { initialWatermark, type Slice } from '../../domain/results-watermark';
import type { CountRequest } from '../../ports';
import { expandIncludes } from './include';
import { covariateWindow, metricSourceSet, renderSql, resultsCountParams, sourceSlots, tableRef, toStoredIso, type SqlParam } from './render';
import RESULTS_BASE_ROWS_SQL from './results-base-rows.sql';
import RESULTS_BASE_SQL from './results-base.sql';
import RESULTS_COMMIT_SQL from './results-commit.sql';
import RESULTS_COUNT_INCREMENTAL_SQL from './results-count-incremental.sql';
import RESULTS_SUMMARY_SQL from './results-summary.sql';
import RESULTS_WATERMARK_SQL from './results-watermark.sql';

/** The queries that share results-count.sql's rules, with the rules included (include.ts). */
const RESULTS_SUMMARY = expandIncludes(RESULTS_SUMMARY_SQL);
const RESULTS_COUNT_INCREMENTAL = expandIncludes(RESULTS_COUNT_INCREMENTAL_SQL);
const RESULTS_BASE = expandIncludes(RESULTS_BASE_SQL);

export interface IncrementalTables {
  events: string;
  /**
   * The raw events with the arrival hour as a partition (tally.events_by_arrival on AWS; locally the
   * events view over the arrival folders a query reads), which the summaries read.
   */
  eventsByArrival: string;
  identities: string;
  /** The experiments' state: tally.results_state on AWS, a view over the Parquet files locally. */
  state: string;
  /** The experiments' bases: tally.results_base on AWS, a view over the committed base file locally. */
  base: string;
}

/** The committed base a query reads (BaseCommit's generation and boundary), if the experiment has one. */
export type BaseRef = Pick<BaseCommit, 'generation' | 'boundaryDt'>;

/**
 * The end of time as a received_at bound: the newest raw events have no upper bound (Athena's
 * projection of the arrival hour ends at NOW, so it lists the hours up to the query's time).
 */
const OPEN_END = '9999-12-31T23:59:59.999Z';
const DAY_MS = 86_400_000;
/** How far after its arrival an event may be timestamped (the spec's 48-hour clamp, domain/limits.ts). */
const FUTURE_DAYS = 2;

const day = (iso: string) => iso.slice(0, 10);
const addDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY_MS).toISOString();

function summaryParams(request: CountRequest, received: { lo: string; hi: string }, aggregateTo: string, eventsToDt: string): Record<string, SqlParam> {
  const p = resultsCountParams(request);
  return {
    project_id: p.project_id!,
    experiment_id: request.experimentId,
    slice_lo: received.lo,
    slice_hi: received.hi,
    slice_dt: day(received.lo),
    arrival_from: arrivalHoursFor(received.lo, received.hi).from,
    arrival_to: arrivalHoursFor(received.lo, received.hi).to,
    aggregate_to: aggregateTo,
    from_ts: p.from_ts!,
    covariate_from_ts: p.covariate_from_ts!,
    covariate_from_dt: p.covariate_from_dt!,
    events_to_dt: eventsToDt,
    experiment_spellings: p.experiment_spellings!,
    exposure_event: p.exposure_event!,
    super_property_path: p.super_property_path!,
    sdk_super_property_path: p.sdk_super_property_path!,
    name_super_property_path: p.name_super_property_path!,
    variants: p.variants!,
    goal_event: p.goal_event!,
    // One slot per metric source: the state keeps each source's events, whatever the metrics' kinds and caps.
    metric_slots: sourceSlots(request.metrics ?? []),
  };
}

/**
 * The state rows of one slice: events received in [slice.lo, slice.hi), timestamped from the run's
 * start (on any day up to two after the slice's end: the future clamp), merged up to slice.hi.
 */
export function renderResultsSummary(request: CountRequest, slice: Slice, tables: Pick<IncrementalTables, 'eventsByArrival'>): string {
  const lo = toStoredIso(slice.lo, 'slice.lo');
  const hi = toStoredIso(slice.hi, 'slice.hi');
  return renderSql(RESULTS_SUMMARY, summaryParams(request, { lo, hi }, hi, day(addDays(hi, FUTURE_DAYS))), { events: tables.eventsByArrival });
}

/**
 * The empty state's watermark: nothing the count reads can have been received earlier. With CUPED the
 * state also keeps the metric events of the pre-exposure window before the run (docs/decisions/cuped.md),
 * so it starts from the window's start: the experiment's first slice reads the window once.
 */
export function stateStartWatermark(request: Pick<CountRequest, 'from' | 'cupedLookbackDays'>): string {
  return initialWatermark(covariateWindow(request).fromTs);
}

/** The first day a slice of the experiment's state can start on: the empty state's watermark's. */
export function stateFromDt(request: Pick<CountRequest, 'from' | 'cupedLookbackDays'>): string {
  return day(stateStartWatermark(request));
}

/**
 * The summary columns a base row has (results-base-rows.sql selects them), for the empty base: all
 * the state's but the slice's range and the commit markers' set of metric sources.
 */
const BASE_ROW_COLUMNS = Object.keys(RESULTS_STATE_COLUMNS).filter((c) => c !== 'slice_lo' && c !== 'slice_hi' && c !== 'metric_sources');
const SQL_TYPES = { string: 'varchar', boolean: 'boolean', double: 'double' } as const;

/**
 * The body of `base_rows AS (...)`: the committed generation's rows, or none (a relation of the same
 * columns with no rows, reading no table) before the experiment's first base.
 */
function baseRows(request: Pick<CountRequest, 'projectId' | 'experimentId'>, base: BaseRef | undefined, tables: Pick<IncrementalTables, 'base'>): string {
  if (!base) {
    const cols = BASE_ROW_COLUMNS.map((c) => `CAST(NULL AS ${SQL_TYPES[RESULTS_STATE_COLUMNS[c as keyof typeof RESULTS_STATE_COLUMNS]]}) AS ${c}`);
    return `SELECT ${cols.join(', ')} FROM (VALUES (1)) AS no_base (x) WHERE false`;
  }
  return renderSql(
    RESULTS_BASE_ROWS_SQL,
    { project_id: request.projectId, experiment_id: request.experimentId, generation: base.generation },
    { base: tables.base },
  );
}

/**
 * The closed state days (`closedFromDt`..`closedToDt`, slices ending by `watermark`) rolled up with
 * the previous base into the rows of generation `generation` (results-base.sql).
 */
export function renderResultsBase(
  request: Pick<CountRequest, 'projectId' | 'experimentId'>,
  rollUp: { previous: BaseRef | undefined; closedFromDt: string; closedToDt: string; watermark: string; generation: string },
  tables: Pick<IncrementalTables, 'state' | 'base'>,
): string {
  const body = renderSql(
    RESULTS_BASE,
    {
      project_id: request.projectId,
      experiment_id: request.experimentId,
      closed_from_dt: rollUp.closedFromDt,
      closed_to_dt: rollUp.closedToDt,
      watermark: toStoredIso(rollUp.watermark, 'watermark'),
      generation: rollUp.generation,
    },
    { state: tables.state },
  );
  return `WITH base_rows AS (\n${baseRows(request, rollUp.previous, tables)}\n),\n${body}`;
}

/** Athena: writes a base generation's rows (renderResultsBase) into the base table. */
export function renderResultsBaseInsert(...args: Parameters<typeof renderResultsBase>): string {
  return `INSERT INTO ${tableRef(args[2].base)}\n${renderResultsBase(...args)}`;
}

/**
 * The incremental count: the committed base (if any), the state rows of the days after its boundary
 * of slices ending by `watermark`, plus the raw events received since.
 */
export function renderResultsCountIncremental(request: CountRequest, watermark: string, tables: IncrementalTables, base?: BaseRef): string {
  const p = resultsCountParams(request);
  const w = toStoredIso(watermark, 'watermark');
  const tail = renderSql(RESULTS_SUMMARY, summaryParams(request, { lo: w, hi: OPEN_END }, p.to_ts as string, p.to_dt as string), {
    events: tables.eventsByArrival,
  });
  const body = renderSql(
    RESULTS_COUNT_INCREMENTAL,
    {
      project_id: p.project_id!,
      experiment_id: request.experimentId,
      watermark: w,
      state_from_dt: base?.boundaryDt ?? stateFromDt(request),
      state_to_dt: day(w),
      to_ts: p.to_ts!,
      identities_from_dt: p.identities_from_dt!,
      variants: p.variants!,
      series_interval: p.series_interval!,
      metric_slots: p.metric_slots!,
      cuped_lookback_hours: p.cuped_lookback_hours!,
    },
    { state: tables.state, identities: tables.identities },
  );
  return `WITH tail AS (\n${tail}\n),\nbase_rows AS (\n${baseRows(request, base, tables)}\n),\n${body}`;
}

/** Athena: appends a slice's summary to the state table. */
export function renderResultsStateInsert(request: CountRequest, slice: Slice, tables: Pick<IncrementalTables, 'eventsByArrival' | 'state'>): string {
  return `INSERT INTO ${tableRef(tables.state)}\n${renderResultsSummary(request, slice, tables)}`;
}

/** Athena: the marker row that commits a slice (its end becomes the watermark). */
export function renderResultsCommit(request: CountRequest, slice: Slice, tables: Pick<IncrementalTables, 'state'>): string {
  const lo = toStoredIso(slice.lo, 'slice.lo');
  const hi = toStoredIso(slice.hi, 'slice.hi');
  return renderSql(
    RESULTS_COMMIT_SQL,
    {
      slice_lo: lo,
      slice_hi: hi,
      slice_dt: day(lo),
      project_id: request.projectId,
      experiment_id: request.experimentId,
      metric_sources: metricSourceSet(request.metrics, request.cupedLookbackDays),
    },
    { state: tables.state },
  );
}

/**
 * Athena: the committed watermark of the request's set of metric sources (one row, NULL for an empty
 * state or a set never committed); `now` is the run's clock.
 */
export function renderResultsWatermark(
  request: Pick<CountRequest, 'projectId' | 'experimentId' | 'from' | 'metrics' | 'cupedLookbackDays'> & { now: string },
  tables: Pick<IncrementalTables, 'state'>,
  base?: BaseRef,
): string {
  return renderSql(
    RESULTS_WATERMARK_SQL,
    {
      project_id: request.projectId,
      experiment_id: request.experimentId,
      // Slices after the base start on its boundary or later (the base's own watermark is in its commit).
      state_from_dt: base?.boundaryDt ?? stateFromDt(request),
      state_to_dt: day(toStoredIso(request.now, 'now')),
      metric_sources: metricSourceSet(request.metrics, request.cupedLookbackDays),
    },
    { state: tables.state },
  );
}
