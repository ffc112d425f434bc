/**
 * The funnels query (insight-funnels.sql, its rules included): one text for DuckDB and Athena from a
 * definition, the project and the data watermark. Pure.
 */
import type { FunnelsDefinition } from '../../domain/insights/funnels-definition';
import { funnelsUsesProperties } from '../../domain/insights/uses-properties';
import { localRangeParams } from './local-range';
import type { InsightSqlContext } from './insight-context';
import FUNNELS_SQL from './insight-funnels.sql';
import { insightText, insightTextFor } from './insight-text';
import { identitiesFromDt } from './insight-trends';
import { propertyPath } from './property-path';
import { renderSql, toStoredIso, type SqlParam } from './render';

// Funnels order each user's events by their timestamp (insight-text.ts, readsTimestamp).
const FUNNELS = insightText(FUNNELS_SQL, { readsTimestamp: true });

export function funnelsParams(definition: FunnelsDefinition, context: InsightSqlContext): Record<string, SqlParam> {
  return {
    project_id: context.projectId,
    identities_from_dt: identitiesFromDt(context.projectCreatedAt),
    ...localRangeParams(context.timeZone, definition.date_from, definition.date_to),
    data_through: toStoredIso(context.dataThrough, 'dataThrough'),
    events: [...new Set(definition.steps.map((s) => s.event))],
    steps: definition.steps.map((s, i) =>
      JSON.stringify([String(i + 1), s.event, s.where ? propertyPath(s.where.property) : null, s.where ? s.where.equals : null]),
    ),
    step_count: String(definition.steps.length),
    window_days: String(definition.conversion_window_days),
    breakdown: definition.breakdown ?? 'none',
    breakdown_path: definition.breakdown === 'property' && definition.breakdown_property !== undefined ? propertyPath(definition.breakdown_property) : '$',
  };
}

export function renderFunnels(definition: FunnelsDefinition, context: InsightSqlContext): string {
  return renderSql(insightTextFor(FUNNELS, funnelsUsesProperties(definition)), funnelsParams(definition, context), { ...context.tables });
}
