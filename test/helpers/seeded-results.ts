/**
 * Results stored straight into the results store, for dashboard tests that need given figures: the
 * counts' statistics (lambdas/domain/stats.ts) over a window, running, with whatever else a test adds
 * (metrics, a series).
 */
import { cumulateSeries, seriesPoints } from '../../lambdas/domain/results-series';
import { experimentStats } from '../../lambdas/domain/stats';
import type { ExperimentResults } from '../../lambdas/ports';

export type Counts = Array<{ variant: string; enrolled: number; converted: number }>;

export function seededResults(
  experimentId: string,
  window: { from: string; to: string },
  counts: Counts,
  extra: Partial<ExperimentResults> & Record<string, unknown> = {},
): ExperimentResults & Record<string, unknown> {
  const stats = experimentStats(counts);
  return {
    experiment_id: experimentId,
    status: 'running',
    computed_at: window.to,
    window,
    variants: stats.variants,
    comparisons: stats.comparisons,
    srm: stats.srm,
    multiple_exposures: 0,
    series: [],
    ...extra,
  };
}

/** The cumulative series of counts all enrolled in the window's first hour. */
export function seededSeries(window: { from: string; to: string }, counts: Counts): ExperimentResults['series'] {
  return seriesPoints(
    window,
    cumulateSeries(
      window,
      counts.map((c) => c.variant),
      counts.map((c) => ({ ...c, period: window.from.slice(0, 13) })),
    ),
  );
}
