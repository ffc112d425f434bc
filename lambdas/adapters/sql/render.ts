/**
 * Renders the one SQL source both engines run (results-count.sql, its rules included by include.ts)
 * into the final query text: named placeholders become quoted literals, {{table}} references become
 * table names. Pure; shared by
 * DuckDbResultsQuery (locally) and AthenaResultsQuery (AWS), so both engines get the same text except
 * for the table names.
 *
 * Why literals and not bind parameters: Athena's execution parameters are positional `?` only, DuckDB
 * has its own syntax, and table names cannot be bound at all. Every value is a string rendered as a
 * standard SQL string literal (single quotes doubled); both Trino and DuckDB read backslashes in
 * '...' literally, so doubling quotes is the whole escape. Values that no literal can carry safely
 * (NUL, unpaired UTF-16 surrogates) are rejected, table names must be plain identifiers. Values from
 * clients never get here with either: the text rule (domain/client-text.ts) refuses them first.
 *
 * The tokenizer skips string literals, quoted identifiers and comments, so a `:word` or `{{word}}`
 * inside them is never substituted. Comments are dropped from the output. A placeholder without a
 * value, a value or table without a placeholder, and `::` casts (DuckDB/Postgres-only) are errors.
 */
import { isWellFormed } from '../../domain/client-text';
import { experimentNameSpellings, snakeCase, EXPOSURE_EVENT, SUPER_PROPERTY_PREFIX } from '../../domain/experiment';
import { sdkSnakeCase } from '../../domain/sdk-snake-case';
import type { PeriodCounts } from '../../domain/results-series';
import type { ExperimentMetric } from '../../domain/experiment-metric';
import type { CountRequest, CountResult, MetricCounts, SegmentCounts } from '../../ports';
import type { CovariateSums } from '../../domain/regression-adjustment';
import { BREAKDOWN_DIMENSIONS, type BreakdownDimension } from '../../domain/breakdown-segments';
import { NUMBER_BOUND } from '../../domain/numeric-rule';
import { expandIncludes } from './include';
import { propertyPath } from './property-path';
import { SqlRenderError } from './render-error';
import RESULTS_COUNT_SQL from './results-count.sql';

/** A parameter: a string, or a non-empty list of strings (rendered as `'a', 'b'`, for IN (...) and ARRAY[...]). */
export type SqlParam = string | readonly string[];

export { SqlRenderError };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
/** table, schema.table or catalog.schema.table, unquoted. */
const TABLE_REF = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}$/;

/** A standard SQL string literal: 'it''s'. */
export function quoteLiteral(value: string): string {
  if (typeof value !== 'string') throw new SqlRenderError(`SQL parameters must be strings, got ${typeof value}`);
  if (value.includes('\u0000')) throw new SqlRenderError('SQL parameters must not contain NUL characters');
  if (!isWellFormed(value)) throw new SqlRenderError('SQL parameters must be well-formed Unicode (unpaired surrogate)');
  return `'${value.replaceAll("'", "''")}'`;
}

export function tableRef(name: string): string {
  if (!TABLE_REF.test(name)) {
    throw new SqlRenderError(`Table reference "${name}" must be an unquoted identifier, optionally qualified (database.table)`);
  }
  return name;
}

function renderParam(name: string, value: SqlParam): string {
  if (typeof value === 'string') return quoteLiteral(value);
  if (!Array.isArray(value) || value.length === 0) throw new SqlRenderError(`List parameter :${name} must be a non-empty array of strings`);
  return value.map(quoteLiteral).join(', ');
}

/**
 * Fills in `:name` placeholders with literals and `{{name}}` references with table names, outside
 * string literals, quoted identifiers and comments (which are removed); blank lines are dropped.
 */
export function renderSql(sql: string, params: Record<string, SqlParam>, tables: Record<string, string>): string {
  const usedParams = new Set<string>();
  const usedTables = new Set<string>();
  let out = '';
  let i = 0;
  const closing = (quote: string, what: string): number => {
    // Returns the index just past the closing quote; a doubled quote is an escaped one.
    let j = i + 1;
    for (;;) {
      const k = sql.indexOf(quote, j);
      if (k < 0) throw new SqlRenderError(`Unterminated ${what} at offset ${i}`);
      if (sql[k + 1] === quote) j = k + 2;
      else return k + 1;
    }
  };
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      const end = closing(ch, ch === "'" ? 'string literal' : 'quoted identifier');
      out += sql.slice(i, end);
      i = end;
    } else if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new SqlRenderError(`Unterminated comment at offset ${i}`);
      out += ' ';
      i = end + 2;
    } else if (sql.startsWith('{{>', i)) {
      throw new SqlRenderError(`Include at offset ${i} not expanded: pass the text through expandIncludes (include.ts) first`);
    } else if (sql.startsWith('{{', i)) {
      const m = /^\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/.exec(sql.slice(i, i + 100));
      if (!m) throw new SqlRenderError(`Malformed table reference at offset ${i}`);
      const name = m[1]!;
      const table = tables[name];
      if (table === undefined) throw new SqlRenderError(`No table given for {{${name}}}`);
      out += tableRef(table);
      usedTables.add(name);
      i += m[0].length;
    } else if (ch === ':') {
      if (sql[i + 1] === ':') throw new SqlRenderError(`"::" casts are not Trino SQL (offset ${i}); use CAST(x AS type)`);
      const m = NAME.exec(sql.slice(i + 1, i + 200));
      if (!m) throw new SqlRenderError(`Stray ":" at offset ${i}`);
      const name = m[0];
      if (!Object.hasOwn(params, name)) throw new SqlRenderError(`No value given for :${name}`);
      out += renderParam(name, params[name]!);
      usedParams.add(name);
      i += 1 + name.length;
    } else {
      out += ch;
      i++;
    }
  }
  const unusedParams = Object.keys(params).filter((p) => !usedParams.has(p));
  if (unusedParams.length > 0) throw new SqlRenderError(`Parameters not in the SQL: ${unusedParams.map((p) => `:${p}`).join(', ')}`);
  const unusedTables = Object.keys(tables).filter((t) => !usedTables.has(t));
  if (unusedTables.length > 0) throw new SqlRenderError(`Tables not in the SQL: ${unusedTables.map((t) => `{{${t}}}`).join(', ')}`);
  return out
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// The results counting query (results-count.sql): parameters from a CountRequest, rows to a result.

export interface ResultsTables {
  events: string;
  identities: string;
}

/** ISO 8601 UTC with milliseconds (the stored form), so text comparison in SQL is time comparison. */
export function toStoredIso(value: string, label: string): string {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new SqlRenderError(`${label} is not an ISO 8601 time: "${value}"`);
  const iso = new Date(ms).toISOString();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(iso)) throw new SqlRenderError(`${label} is out of range: "${value}"`);
  return iso;
}

/**
 * The JSON path of the super property `$experiment_<spelling>`, in Trino's bracket form. A spelling that
 * a quoted path key cannot carry as is (a double quote, a backslash or a control character: Trino and
 * the DuckDB rewrite would read it differently) falls back to Tally's snake_case, which has only
 * [a-z0-9_]; such a name's other spellings still enroll through exposures.
 */
function superPropertyPath(spelling: string, fallback: string): string {
  const key = /^[^"\\\u0000-\u001f]+$/.test(spelling) ? spelling : fallback;
  return `$["${SUPER_PROPERTY_PREFIX}${key}"]`;
}

/**
 * CUPED's pre-exposure window (docs/decisions/cuped.md): the earliest time any covariate event can
 * have (the run's start minus the window; the start itself with CUPED off) and the window in hours.
 */
export function covariateWindow(request: Pick<CountRequest, 'from' | 'cupedLookbackDays'>): { fromTs: string; hours: number } {
  const hours = (request.cupedLookbackDays ?? 0) * 24;
  return { fromTs: new Date(Date.parse(toStoredIso(request.from, 'from')) - hours * 3_600_000).toISOString(), hours };
}

export function resultsCountParams(request: CountRequest): Record<string, SqlParam> {
  const fromTs = toStoredIso(request.from, 'from');
  const covariate = covariateWindow(request);
  const toTs = toStoredIso(request.to, 'to');
  const snake = snakeCase(request.experimentName);
  return {
    project_id: request.projectId,
    from_ts: fromTs,
    to_ts: toTs,
    to_dt: toTs.slice(0, 10),
    covariate_from_ts: covariate.fromTs,
    covariate_from_dt: covariate.fromTs.slice(0, 10),
    cuped_lookback_hours: String(covariate.hours),
    experiment_spellings: experimentNameSpellings(request.experimentName),
    // The day before the project's creation: see the query's comment on partition pruning.
    identities_from_dt: new Date(Date.parse(toStoredIso(request.projectCreatedAt, 'projectCreatedAt')) - 86_400_000).toISOString().slice(0, 10),
    exposure_event: EXPOSURE_EVENT,
    super_property_path: superPropertyPath(snake, snake),
    sdk_super_property_path: superPropertyPath(sdkSnakeCase(request.experimentName), snake),
    name_super_property_path: superPropertyPath(request.experimentName, snake),
    variants: request.variants,
    goal_event: request.goalEvent,
    metric_slots: metricSlots(request.metrics ?? []),
    series_interval: request.series ?? 'day',
  };
}

// ---------------------------------------------------------------------------------------------
// Metrics (issue 22): the slots of rules/metric-slots.sql.

/** The base slot: the enrollment and goal rows (no metric). */
export const BASE_SLOT = '[]';

/**
 * The numeric rule a sum's values were read under, part of its source: the incremental state of a sum
 * summarised before the rule (whose rows may hold Infinity from "1e400", or 1e200) has another source,
 * so it is not read and is built again under the rule (render-incremental.ts: a state built for
 * another set of sources is not read as complete). Change it when the rule changes.
 */
export const SUM_SOURCE_RULE = `numbers within ${NUMBER_BOUND}`;

/**
 * A metric's source: the event it reads and, for `sum`, the property and the numeric rule
 * (SUM_SOURCE_RULE). Conversion and count of one event share a source; the incremental state keeps
 * one row per source and event.
 */
export function metricSource(metric: Pick<ExperimentMetric, 'event' | 'kind' | 'property'>): string {
  return JSON.stringify(metric.kind === 'sum' ? [metric.event, metric.property ?? null, SUM_SOURCE_RULE] : [metric.event, null]);
}

/** The JSON path of a summed property (property-path.ts); null for conversion and count. */
function metricPropertyPath(metric: ExperimentMetric): string | null {
  if (metric.kind !== 'sum') return null;
  const property = metric.property;
  if (typeof property !== 'string' || property === '') throw new SqlRenderError(`Metric "${metric.name}" is a sum without a property to sum`);
  return propertyPath(property, `metric "${metric.name}": property`);
}

/** The slot of a metric or a source: [index, kind, event, path, cap, source] (rules/metric-slots.sql). */
function slot(index: number | null, metric: ExperimentMetric): string {
  const cap = index !== null && metric.cap !== undefined ? String(metric.cap) : null;
  return JSON.stringify([
    index === null ? null : String(index),
    index === null ? null : metric.kind,
    metric.event,
    metricPropertyPath(metric),
    cap,
    metricSource(metric),
  ]);
}

/** The count's slots: the base slot, then one per metric in the request's order. */
export function metricSlots(metrics: readonly ExperimentMetric[]): string[] {
  return [BASE_SLOT, ...metrics.map((m, i) => slot(i, m))];
}

/** The summary's slots: the base slot, then one per distinct source of the metrics (sorted). */
export function sourceSlots(metrics: readonly ExperimentMetric[]): string[] {
  const bySource = new Map(metrics.map((m) => [metricSource(m), m]));
  return [BASE_SLOT, ...[...bySource.keys()].sort().map((source) => slot(null, bySource.get(source)!))];
}

/**
 * The set of metric sources a state's slices summarise, as one text (a JSON array, sorted): kept with
 * each commit, so a state built for another set is not read as complete (render-incremental.ts). With
 * CUPED the set ends with the pre-exposure window ("pre-exposure <days> days"): a state built without
 * the window's events, or with a shorter one, lacks covariate events and is not read either.
 */
export function metricSourceSet(metrics: readonly ExperimentMetric[] | undefined, cupedLookbackDays?: number): string {
  const sources = [...new Set((metrics ?? []).map(metricSource))].sort();
  return JSON.stringify(cupedLookbackDays === undefined ? sources : [...sources, `pre-exposure ${cupedLookbackDays} days`]);
}

/** results-count.sql with its rules included. */
const RESULTS_COUNT = expandIncludes(RESULTS_COUNT_SQL);

export function renderResultsCount(request: CountRequest, tables: ResultsTables): string {
  return renderSql(RESULTS_COUNT, resultsCountParams(request), { ...tables });
}

/**
 * A sum as either engine returns it: a double (DuckDB), a decimal string (Athena), or NULL for none;
 * NaN for anything that is not a finite number (Infinity, "NaN", a word), which the caller reports.
 */
function toSum(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'bigint' ? Number(value) : typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : NaN;
}

/** A count as either engine returns it: a bigint (DuckDB), a decimal string (Athena) or a number. */
function toCount(value: unknown, label: string): number {
  const n = typeof value === 'bigint' ? Number(value) : typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new Error(`Results query returned a bad ${label}: ${String(value)}`);
  return n;
}

/**
 * Maps the query's rows (variant, period, metric, enrolled, converted, multiple_exposures, metric_sum,
 * metric_sum_squares, metric_min) to the result: totals rows (period NULL or absent, metric '[]' or
 * absent) give every configured variant in configuration order, zeros for a variant without a row;
 * period rows give `periods`, only when the request asks for the series; metric rows give `metrics`, in the
 * request's order, zeros for a variant nobody enrolled in.
 */
export function toCountResult(
  request: CountRequest,
  rows: Array<Record<string, unknown>>,
): Pick<CountResult, 'variants' | 'multipleExposures' | 'periods' | 'metrics' | 'segments'> {
  const byVariant = new Map<string, { enrolled: number; converted: number }>();
  const periods: PeriodCounts[] = [];
  const metrics = request.metrics ?? [];
  const slotIndex = new Map(metricSlots(metrics).map((text, i) => [text, i - 1]));
  const metricRows = metrics.map(() => new Map<string, { users: number; sum: number; sum_squares: number; min: number | null; covariate?: CovariateSums }>());
  const cuped = request.cupedLookbackDays !== undefined;
  const unavailable = metrics.map((): string | undefined => undefined);
  const segments: SegmentCounts[] = [];
  let multipleExposures = 0;
  for (const row of rows) {
    const variant = row.variant;
    if (typeof variant !== 'string') throw new Error(`Results query returned a row without a variant: ${JSON.stringify(row)}`);
    const counts = { enrolled: toCount(row.enrolled, 'enrolled'), converted: toCount(row.converted, 'converted') };
    multipleExposures = toCount(row.multiple_exposures ?? 0, 'multiple_exposures');
    const dimension = row.dimension;
    if (dimension !== null && dimension !== undefined && dimension !== '') {
      if (!BREAKDOWN_DIMENSIONS.includes(dimension as BreakdownDimension))
        throw new Error(`Results query returned a row of an unknown dimension: ${String(dimension)}`);
      // Athena returns NULL as an absent value; a missing value is '' (the segment "unknown").
      const value = row.segment ?? '';
      if (typeof value !== 'string') throw new Error(`Results query returned a bad segment: ${String(value)}`);
      if (counts.enrolled > 0)
        segments.push({ dimension: dimension as BreakdownDimension, value, variant, users: counts.enrolled, conversions: counts.converted });
      continue;
    }
    const metric = row.metric ?? BASE_SLOT;
    if (metric !== BASE_SLOT) {
      const index = typeof metric === 'string' ? slotIndex.get(metric) : undefined;
      if (index === undefined || index < 0) throw new Error(`Results query returned a row of an unknown metric: ${String(metric)}`);
      const covariateFigures = cuped ? [row.covariate_sum, row.covariate_sum_squares, row.covariate_sum_products].map(toSum) : [];
      const figures = [row.metric_sum, row.metric_sum_squares, row.metric_min, ...covariateFigures].map(toSum);
      if (figures.some(Number.isNaN)) {
        // Not a finite number: only this metric cannot be computed (the numeric rule keeps every value
        // within 1e15, so an engine that still gives one is said so, not turned into 0 or a 500).
        unavailable[index] ??=
          `the engine returned a sum of this metric that is not a finite number (variant "${variant}"), so its means and comparisons cannot be computed`;
        continue;
      }
      const [sum, sumSquares, min, covariateSum, covariateSquares, covariateProducts] = figures as Array<number | null>;
      metricRows[index]!.set(variant, {
        users: counts.enrolled,
        sum: sum ?? 0,
        sum_squares: sumSquares ?? 0,
        min: min ?? null,
        ...(cuped ? { covariate: { sum: covariateSum ?? 0, sum_squares: covariateSquares ?? 0, sum_products: covariateProducts ?? 0 } } : {}),
      });
      continue;
    }
    const period = row.period;
    if (period === null || period === undefined || period === '') {
      byVariant.set(variant, counts);
    } else {
      if (typeof period !== 'string' || !/^\d{4}-\d{2}-\d{2}(T\d{2})?$/.test(period)) throw new Error(`Results query returned a bad period: ${String(period)}`);
      periods.push({ variant, period, ...counts });
    }
  }
  return {
    variants: request.variants.map((variant) => ({ variant, ...(byVariant.get(variant) ?? { enrolled: 0, converted: 0 }) })),
    multipleExposures,
    segments,
    ...(request.series ? { periods } : {}),
    ...(metrics.length > 0
      ? {
          metrics: metrics.map((m, i): MetricCounts => ({
            name: m.name,
            variants: request.variants.map((variant) => {
              const found = metricRows[i]!.get(variant);
              const covariate = cuped ? { covariate: found?.covariate ?? { sum: 0, sum_squares: 0, sum_products: 0 } } : {};
              return { variant, users: found?.users ?? 0, sum: found?.sum ?? 0, sum_squares: found?.sum_squares ?? 0, ...covariate };
            }),
            values_non_negative: [...metricRows[i]!.values()].every((v) => v.min === null || v.min >= 0),
            ...(unavailable[i] !== undefined ? { unavailable: unavailable[i] } : {}),
          })),
        }
      : {}),
  };
}
