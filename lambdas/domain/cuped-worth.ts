/**
 * What a CUPED variance reduction is worth, in users (docs/decisions/cuped.md): a standard error goes
 * as sqrt(variance / n), so the adjusted comparison is as precise as the unadjusted one would be with
 * 1 / (1 - r) times the users (r = 0.375: 1.6× the users). Pure; the dashboard states it per metric.
 */

/** The users multiple a reduction r (0 <= r < 1) is worth, or null without one. */
export function equivalentUsersFactor(reduction: number | null | undefined): number | null {
  if (reduction === null || reduction === undefined || !Number.isFinite(reduction) || reduction < 0 || reduction >= 1) return null;
  return 1 / (1 - reduction);
}

/** "like 1.6× the users", or null without a reduction. */
export function likeUsersText(reduction: number | null | undefined): string | null {
  const factor = equivalentUsersFactor(reduction);
  return factor === null ? null : `like ${factor.toFixed(1)}× the users`;
}

/** "variance −37.5% (like 1.6× the users)", or null without a reduction. */
export function cupedWorthText(reduction: number | null | undefined): string | null {
  const like = likeUsersText(reduction);
  if (like === null) return null;
  const percent = Number((reduction! * 100).toFixed(1));
  return `variance −${percent}% (${like})`;
}

/** The planner's expectation: "CUPED would remove ~38% of the variance (like 1.6× the users)", or null without one. */
export function cupedExpectedText(reduction: number | null | undefined): string | null {
  const like = likeUsersText(reduction);
  if (like === null) return null;
  return `CUPED would remove ~${Math.round(reduction! * 100)}% of the variance (${like})`;
}
