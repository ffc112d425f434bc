/**
 * Whether an insight reads its events' properties: a trends series measured by a property (sum,
 * average), a property breakdown, or a funnel step filtered on a property. An insight that reads none
 * is rendered without the properties column (lambdas/adapters/sql/rules/event-properties-unused.sql),
 * so its scans skip the widest column of the events (docs/decisions/columnar-events.md). Retention
 * reads none. Pure.
 */
import type { FunnelsDefinition } from './funnels-definition';
import type { TrendsDefinition } from './trends-definition';

export function trendsUsesProperties(definition: TrendsDefinition): boolean {
  return definition.breakdown === 'property' || definition.series.some((s) => s.property !== undefined);
}

export function funnelsUsesProperties(definition: FunnelsDefinition): boolean {
  return definition.breakdown === 'property' || definition.steps.some((s) => s.where !== undefined);
}
