/**
 * Whether a computation changed an experiment's results: what the results page states (the run's status,
 * the variants' counts and figures, the metrics, the breakdowns, the sample-ratio check), not when they
 * were computed or up to when they run (`computed_at`, the window's end, the series' newest empty periods,
 * the incremental watermark). The results job counts these (`changed`), so `npm start`'s terminal names a
 * run only when new events moved some result, not every minute.
 */
const STATED = ['status', 'variants', 'comparisons', 'srm', 'multiple_exposures', 'metrics', 'guardrail_breached', 'breakdowns'] as const;

type Stated = Partial<Record<(typeof STATED)[number], unknown>>;

/** True for a first computation, or when any stated field differs from the results stored before. */
export function resultsChanged(before: Stated | undefined, after: Stated): boolean {
  if (before === undefined) return true;
  return STATED.some((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}
