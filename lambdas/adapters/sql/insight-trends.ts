/**
 * The trends query (insight-trends.sql, its rules included): one text for DuckDB and Athena from a
 * definition, the project and the data watermark. Pure.
 */
import { addDays, previousPeriod, rangeDays } from '../../domain/insights/date-range';
import type { TrendsDefinition } from '../../domain/insights/trends-definition';
import { trendsUsesProperties } from '../../domain/insights/uses-properties';
import { localRangeParams } from './local-range';
import type { InsightSqlContext } from './insight-context';
import TRENDS_SQL from './insight-trends.sql';
import { insightText, insightTextFor } from './insight-text';
import { propertyPath } from './property-path';
import { renderSql, toStoredIso, type SqlParam } from './render';

const TRENDS = insightText(TRENDS_SQL);

export function trendsParams(definition: TrendsDefinition, context: InsightSqlContext): Record<string, SqlParam> {
  const days = rangeDays(definition.date_from, definition.date_to);
  return {
    project_id: context.projectId,
    identities_from_dt: identitiesFromDt(context.projectCreatedAt),
    ...localRangeParams(context.timeZone, trendsFirstDay(definition), definition.date_to),
    from_dt: definition.date_from,
    period_days: String(days),
    data_through: toStoredIso(context.dataThrough, 'dataThrough'),
    events: [...new Set(definition.series.map((s) => s.event))],
    series: definition.series.map((s, i) => JSON.stringify([String(i), s.event, s.property === undefined ? null : propertyPath(s.property)])),
    interval: definition.interval,
    breakdown: definition.breakdown ?? 'none',
    breakdown_path: definition.breakdown === 'property' && definition.breakdown_property !== undefined ? propertyPath(definition.breakdown_property) : '$',
  };
}

/** The first local day a trend reads: the previous period's with `compare`, else the range's. */
export function trendsFirstDay(definition: TrendsDefinition): string {
  return definition.compare ? previousPeriod(definition).date_from : definition.date_from;
}

export function renderTrends(definition: TrendsDefinition, context: InsightSqlContext): string {
  return renderSql(insightTextFor(TRENDS, trendsUsesProperties(definition)), trendsParams(definition, context), { ...context.tables });
}

/** The day before the project's creation: the identities partitions read (results-count.sql, "Partition pruning"). */
export function identitiesFromDt(projectCreatedAt: string): string {
  return addDays(toStoredIso(projectCreatedAt, 'projectCreatedAt').slice(0, 10), -1);
}
