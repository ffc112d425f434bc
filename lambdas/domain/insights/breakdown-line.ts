/**
 * What a breakdown line of trends and funnels is (docs/api.md, "Insights"): one value of the
 * dimension, the grouped rest ("other": every value outside the top 10) or the missing value
 * ("unknown": events without one), as results' breakdowns say with their `kind`
 * (domain/breakdown-segments.ts). The queries give the kind in a column of its own, so a value sent
 * as the text "other" or "unknown" stays a line of kind "value", never merged with the grouped rest
 * or the missing. Pure.
 */
import { OTHER_SEGMENT, UNKNOWN_SEGMENT, type FoldedSegment } from '../breakdown-segments';

export type BreakdownKind = FoldedSegment['kind'];

export const BREAKDOWN_KINDS: readonly BreakdownKind[] = ['value', 'other', 'unknown'];

/**
 * A query row's breakdown_kind and breakdown_value as the API gives them: the value for kind "value",
 * the labels "other" and "unknown" for the others; both null without a breakdown (the totals).
 */
export function breakdownLine(row: Record<string, unknown>, query: string): { kind: BreakdownKind | null; value: string | null } {
  const kind = row.breakdown_kind;
  if (kind === null || kind === undefined || kind === '') return { kind: null, value: null };
  if (!BREAKDOWN_KINDS.includes(kind as BreakdownKind)) throw new Error(`${query} query returned a bad breakdown_kind: ${String(kind)}`);
  if (kind === 'other') return { kind, value: OTHER_SEGMENT };
  if (kind === 'unknown') return { kind, value: UNKNOWN_SEGMENT };
  const value = row.breakdown_value;
  // A value of kind "value" is never NULL (Athena gives an empty one as '' or as absent).
  return { kind: 'value', value: value === null || value === undefined ? '' : String(value) };
}

/**
 * A breakdown line's name for people: the value as sent for kind "value" (so a value "other" reads
 * `other`), "Other values" for the grouped rest and "Unknown" for the missing value, as the results'
 * breakdowns name their segments; null without a breakdown.
 */
export function breakdownLabel(line: { breakdown_kind: BreakdownKind | null; breakdown_value: string | null }): string | null {
  if (line.breakdown_kind === 'other') return 'Other values';
  if (line.breakdown_kind === 'unknown') return 'Unknown';
  return line.breakdown_value;
}
