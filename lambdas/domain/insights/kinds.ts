/**
 * The insight kinds (docs/decisions/insights.md, "Adding a kind"): each kind's definition schema (the
 * request body, with 4xx messages) and how its query's rows become the API's result. The query text
 * of each kind is in lambdas/adapters/sql/insight-kinds.ts, keyed by the same names. Pure.
 */
import type * as z from 'zod';
import { FunnelsDefinition } from './funnels-definition';
import { toFunnelsResult } from './funnels-result';
import { RetentionDefinition } from './retention-definition';
import { toRetentionResult } from './retention-result';
import { TrendsDefinition } from './trends-definition';
import { toTrendsResult } from './trends-result';

/**
 * What a result is shaped with besides its rows: the arrival watermark the query counted up to (ISO
 * 8601 UTC) and the project's time zone the query counted days in (IANA name; UTC when absent).
 */
export interface ResultContext {
  dataThrough?: string;
  timeZone?: string;
}

export interface InsightKind<D> {
  definition: z.ZodType<D>;
  result(definition: D, rows: Array<Record<string, unknown>>, context?: ResultContext): unknown;
}

const kind = <D>(k: InsightKind<D>): InsightKind<D> => k;

export const INSIGHT_KINDS = {
  trends: kind({ definition: TrendsDefinition, result: toTrendsResult }),
  funnels: kind({ definition: FunnelsDefinition, result: toFunnelsResult }),
  retention: kind({ definition: RetentionDefinition, result: toRetentionResult }),
} as const;

export type InsightKindName = keyof typeof INSIGHT_KINDS;
/** A kind's definition, as its schema gives it. */
export type DefinitionOf<K extends InsightKindName> = (typeof INSIGHT_KINDS)[K] extends InsightKind<infer D> ? D : never;

export const INSIGHT_KIND_NAMES = Object.keys(INSIGHT_KINDS) as InsightKindName[];

export function isInsightKind(name: string): name is InsightKindName {
  return Object.hasOwn(INSIGHT_KINDS, name);
}

/** A stored definition's result from its query's rows. */
export function insightResult(name: InsightKindName, definition: unknown, rows: Array<Record<string, unknown>>, context: ResultContext = {}): unknown {
  const k = INSIGHT_KINDS[name] as InsightKind<unknown>;
  return k.result(definition, rows, context);
}
