/**
 * An experiment's breakdowns (issue 22, "Breakdowns"; docs/decisions/breakdowns.md), as the results
 * job stores them and the admin API returns them:
 *   breakdowns: [{ dimension, segments: [{ value, kind, variants: [{ variant, users, conversions,
 *                 mean, std_error }], comparisons: [same fields as metrics[].comparisons] }] }]
 * Per dimension (platform, country, app_version of the user's first enrollment event), the values
 * folded into the top values, "other" and "unknown" (breakdown-segments.ts), and in each segment the
 * primary metric (the goal's conversion) per variant and every variant against the control, with the
 * experiment's `sequential` setting. The experiment's `correction` runs over one family per
 * dimension: every variant against the control in every segment of it (a null correction: every
 * adjusted_p_value null). Pure.
 */
import { BREAKDOWN_DIMENSIONS, foldSegments, type BreakdownDimension, type FoldedSegment, type SegmentVariantRow } from './breakdown-segments';
import { DEFAULT_CORRECTION, DEFAULT_SEQUENTIAL } from './experiment-metric-fields';
import { metricResults, type VariantComparison } from './metric-results';
import { adjustPValues, type Correction } from './p-value-correction';

export interface SegmentResult {
  value: string;
  kind: FoldedSegment['kind'];
  variants: { variant: string; users: number; conversions: number; mean: number | null; std_error: number | null }[];
  comparisons: VariantComparison[];
}

export interface BreakdownResult {
  dimension: BreakdownDimension;
  segments: SegmentResult[];
}

export function experimentBreakdowns(
  experiment: { goal_event: string; variants: readonly string[]; sequential?: boolean; correction?: Correction | null },
  /** Per dimension, value ('' or null: none) and variant: enrolled users and converters of the goal. */
  rows: ReadonlyArray<SegmentVariantRow & { dimension: BreakdownDimension }>,
  options: { confidence?: number } = {},
): BreakdownResult[] {
  const correction = experiment.correction === undefined ? DEFAULT_CORRECTION : experiment.correction;
  return BREAKDOWN_DIMENSIONS.map((dimension) => {
    const folded = foldSegments(
      rows.filter((r) => r.dimension === dimension),
      experiment.variants,
    );
    const segments = folded.map((segment): SegmentResult => {
      const [primary] = metricResults(
        [
          {
            name: experiment.goal_event,
            kind: 'conversion',
            role: 'primary',
            variants: segment.variants.map((v) => ({ variant: v.variant, sums: { users: v.users, sum: v.conversions, sum_squares: v.conversions } })),
          },
        ],
        {
          sequential: experiment.sequential ?? DEFAULT_SEQUENTIAL,
          correction: null,
          ...(options.confidence !== undefined ? { confidence: options.confidence } : {}),
        },
      );
      return {
        value: segment.value,
        kind: segment.kind,
        variants: primary!.variants.map((v, i) => ({
          variant: v.variant,
          users: v.users,
          conversions: segment.variants[i]!.conversions,
          mean: v.mean,
          std_error: v.std_error,
        })),
        comparisons: primary!.comparisons,
      };
    });
    if (correction) {
      const family = segments.flatMap((s) => s.comparisons);
      const adjusted = adjustPValues(
        family.map((c) => c.p_value),
        correction,
      );
      family.forEach((c, i) => (c.adjusted_p_value = adjusted[i] ?? null));
    }
    return { dimension, segments };
  });
}
