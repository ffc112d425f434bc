/**
 * The retention query (insight-retention.sql, its rules included): one text for DuckDB and Athena
 * from a definition, the project and the data watermark. Pure.
 */
import type { RetentionDefinition } from '../../domain/insights/retention-definition';
import { localRangeParams } from './local-range';
import type { InsightSqlContext } from './insight-context';
import RETENTION_SQL from './insight-retention.sql';
import { insightText } from './insight-text';
import { identitiesFromDt } from './insight-trends';
import { renderSql, toStoredIso, type SqlParam } from './render';

// Retention reads no property (domain/insights/uses-properties.ts).
// It orders each user's events by their timestamp (insight-text.ts, readsTimestamp).
const RETENTION = insightText(RETENTION_SQL, { readsTimestamp: true }).withoutProperties;

export function retentionParams(definition: RetentionDefinition, context: InsightSqlContext): Record<string, SqlParam> {
  return {
    project_id: context.projectId,
    identities_from_dt: identitiesFromDt(context.projectCreatedAt),
    ...localRangeParams(context.timeZone, definition.date_from, definition.date_to),
    data_through: toStoredIso(context.dataThrough, 'dataThrough'),
    start_event: definition.start_event,
    return_event: definition.return_event,
    events: [...new Set([definition.start_event, definition.return_event])],
    interval: definition.interval,
  };
}

export function renderRetention(definition: RetentionDefinition, context: InsightSqlContext): string {
  return renderSql(RETENTION, retentionParams(definition, context), { ...context.tables });
}
