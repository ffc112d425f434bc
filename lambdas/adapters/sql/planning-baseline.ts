/**
 * The planning baseline's query (planning-baseline.sql, its rules included), one text for DuckDB and
 * Athena, and the mapping of its one row. Pure.
 */
import type { BaselineRequest, BaselineSums } from '../../ports';
import { expandIncludes } from './include';
import PLANNING_BASELINE_SQL from './planning-baseline.sql';
import { covariateWindow, renderSql, toStoredIso, type SqlParam } from './render';
import { propertyPath } from './property-path';

const PLANNING_BASELINE = expandIncludes(PLANNING_BASELINE_SQL);

export function planningBaselineParams(request: BaselineRequest): Record<string, SqlParam> {
  const fromTs = toStoredIso(request.from, 'from');
  const toTs = toStoredIso(request.to, 'to');
  // CUPED's window before the look-back (the pseudo-exposure point), as the results' (render.ts).
  const covariate = covariateWindow(request);
  return {
    project_id: request.projectId,
    from_ts: fromTs,
    to_ts: toTs,
    to_dt: toTs.slice(0, 10),
    covariate_from_ts: covariate.fromTs,
    covariate_from_dt: covariate.fromTs.slice(0, 10),
    // The day before the project's creation (results-count.sql, "Partition pruning").
    identities_from_dt: new Date(Date.parse(toStoredIso(request.projectCreatedAt, 'projectCreatedAt')) - 86_400_000).toISOString().slice(0, 10),
    event: request.event,
    property_path: request.property === undefined ? '$' : propertyPath(request.property),
  };
}

export function renderPlanningBaseline(request: BaselineRequest, tables: { events: string; identities: string }): string {
  return renderSql(PLANNING_BASELINE, planningBaselineParams(request), tables);
}

/** A number as either engine returns it: a bigint or number (DuckDB), text (Athena). */
function toNumber(value: unknown, label: string): number {
  const n = typeof value === 'bigint' ? Number(value) : typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`Planning baseline query returned a bad ${label}: ${String(value)}`);
  return n;
}

export function toBaselineSums(rows: Array<Record<string, unknown>>): BaselineSums {
  const row = rows[0];
  if (!row) throw new Error('Planning baseline query returned no row');
  const first = row.first_seen;
  return {
    users: toNumber(row.users, 'users'),
    converted: toNumber(row.converted, 'converted'),
    value_sum: toNumber(row.value_sum, 'value_sum'),
    value_sum_squares: toNumber(row.value_sum_squares, 'value_sum_squares'),
    first_seen: first === null || first === undefined || first === '' ? null : String(first),
    covariate_converted: toNumber(row.covariate_converted, 'covariate_converted'),
    covariate_converted_products: toNumber(row.covariate_converted_products, 'covariate_converted_products'),
    covariate_value_sum: toNumber(row.covariate_value_sum, 'covariate_value_sum'),
    covariate_value_sum_squares: toNumber(row.covariate_value_sum_squares, 'covariate_value_sum_squares'),
    covariate_value_sum_products: toNumber(row.covariate_value_sum_products, 'covariate_value_sum_products'),
  };
}
