/**
 * Each insight kind's query (docs/decisions/insights.md, "Adding a kind"): how its one SQL text is
 * rendered from a definition, and which event days it reads (the local engine reads only those
 * files; Athena prunes to the same `dt` partitions from the text's filters). Keyed by the kinds of
 * domain/insights/kinds.ts: the type checker asks for a line per kind. Pure.
 */
import { utcDaysOf } from '../../domain/insights/local-days';
import type { DefinitionOf, InsightKindName } from '../../domain/insights/kinds';
import type { InsightSqlContext } from './insight-context';
import { renderFunnels } from './insight-funnels';
import { renderRetention } from './insight-retention';
import { renderTrends, trendsFirstDay } from './insight-trends';

export interface InsightQuery<D> {
  render(definition: D, context: InsightSqlContext): string;
  /** The first and last event partitions (dt, UTC days) the query reads: those holding its local days in the time zone. */
  scanDays(definition: D, timeZone: string): { fromDt: string; toDt: string };
}

export const INSIGHT_QUERIES: { [K in InsightKindName]: InsightQuery<DefinitionOf<K>> } = {
  trends: { render: renderTrends, scanDays: (d, zone) => utcDaysOf(zone, trendsFirstDay(d), d.date_to) },
  funnels: { render: renderFunnels, scanDays: (d, zone) => utcDaysOf(zone, d.date_from, d.date_to) },
  retention: { render: renderRetention, scanDays: (d, zone) => utcDaysOf(zone, d.date_from, d.date_to) },
};

export function insightQuery(kind: InsightKindName): InsightQuery<unknown> {
  return INSIGHT_QUERIES[kind] as InsightQuery<unknown>;
}
