/**
 * The retention curve (issue 25: "a triangle table with a chart"): for each period since the start
 * event, the share of users who came back, over all cohorts that have reached that period. Cohorts
 * are pooled by their users (a cohort of 400 weighs 100 times one of 4), and a period counts only the
 * cohorts whose row reaches it and whose cell is complete (the triangle's later cells are empty, not 0%;
 * today's day or this week's cell still counting is left out), so the curve never dips because young
 * cohorts have not had the time yet. Pure.
 */
import type { RetentionResult } from './funnel-types';

export interface RetentionCurvePoint {
  period: number;
  /** Users who came back in this period, summed over the cohorts that reached it. */
  users: number;
  /** The users of those cohorts. */
  cohortUsers: number;
  /** users / cohortUsers; null when no cohort reached the period. */
  share: number | null;
}

export function retentionCurve(result: RetentionResult): RetentionCurvePoint[] {
  return Array.from({ length: result.periods }, (_, period) => {
    let users = 0;
    let cohortUsers = 0;
    for (const cohort of result.cohorts) {
      const cell = cohort.periods[period];
      if (!cell || cell.complete === false) continue;
      users += cell.users;
      cohortUsers += cohort.users;
    }
    return { period, users, cohortUsers, share: cohortUsers === 0 ? null : users / cohortUsers };
  });
}
