/**
 * Breakdown segments (issue 22, "Breakdowns"; docs/decisions/breakdowns.md): the per-value rows of one
 * dimension (platform, country or app_version of the user's enrollment event) folded into what the
 * results show: the BREAKDOWN_TOP_VALUES values with the most enrolled users (all variants together;
 * ties by value, so the order is total), then "other" (every remaining value, summed), then
 * "unknown" (the enrollment event had no value, or an empty one) when it has users. "unknown" is
 * never folded into "other" and never takes a top place. Counts add exactly (users, conversions,
 * sums and sums of squares are sums over users), and a segment's smallest value is the minimum.
 */
export type BreakdownDimension = 'platform' | 'country' | 'app_version';

export const BREAKDOWN_DIMENSIONS: readonly BreakdownDimension[] = ['platform', 'country', 'app_version'];

/** How many values of a dimension are shown on their own; the rest are folded into "other". */
export const BREAKDOWN_TOP_VALUES = 5;

export const OTHER_SEGMENT = 'other';
export const UNKNOWN_SEGMENT = 'unknown';

/** One variant's figures within one value of a dimension. */
export interface SegmentVariantRow {
  /** The dimension's value as the client sent it; null (or '') when the enrollment event had none. */
  value: string | null;
  variant: string;
  users: number;
  conversions: number;
}

export interface FoldedSegment {
  /** The value, OTHER_SEGMENT or UNKNOWN_SEGMENT (see kind: a client may send the text "other"). */
  value: string;
  kind: 'value' | 'other' | 'unknown';
  variants: { variant: string; users: number; conversions: number }[];
}

export function foldSegments(rows: readonly SegmentVariantRow[], variants: readonly string[], top: number = BREAKDOWN_TOP_VALUES): FoldedSegment[] {
  const byValue = new Map<string, SegmentVariantRow[]>();
  const unknown: SegmentVariantRow[] = [];
  for (const row of rows) {
    if (row.value === null || row.value === '') unknown.push(row);
    else byValue.set(row.value, [...(byValue.get(row.value) ?? []), row]);
  }
  const ranked = [...byValue.entries()]
    .map(([value, valueRows]) => ({ value, valueRows, users: valueRows.reduce((n, r) => n + r.users, 0) }))
    .sort((a, b) => b.users - a.users || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const shown = ranked.slice(0, top);
  const rest = ranked.slice(top).flatMap((r) => r.valueRows);
  const out: FoldedSegment[] = shown.map((r) => ({ value: r.value, kind: 'value', variants: perVariant(r.valueRows, variants) }));
  if (rest.length > 0) out.push({ value: OTHER_SEGMENT, kind: 'other', variants: perVariant(rest, variants) });
  if (unknown.some((r) => r.users > 0)) out.push({ value: UNKNOWN_SEGMENT, kind: 'unknown', variants: perVariant(unknown, variants) });
  return out;
}

/** Every configured variant once, in configured order, its rows summed (zeros when it has none). */
function perVariant(rows: readonly SegmentVariantRow[], variants: readonly string[]): FoldedSegment['variants'] {
  return variants.map((variant) => {
    const mine = rows.filter((r) => r.variant === variant);
    return {
      variant,
      users: mine.reduce((n, r) => n + r.users, 0),
      conversions: mine.reduce((n, r) => n + r.conversions, 0),
    };
  });
}
