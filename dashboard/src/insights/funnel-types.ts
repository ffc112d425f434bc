/** The funnels and retention results as the admin API answers them (docs/api.md "Insights"; lambdas/domain/insights/*-result.ts). */
export interface FunnelStep {
  step: number;
  event: string;
  where: { property: string; equals: string } | null;
  users: number;
  conversion_from_first: number | null;
  conversion_from_previous: number | null;
  drop_off: number;
  median_seconds_from_previous: number | null;
}

export interface FunnelGroup {
  breakdown_value: string | null;
  steps: FunnelStep[];
}

export interface FunnelsResult {
  date_from: string;
  date_to: string;
  conversion_window_days: number;
  breakdown: { by: string; property: string | null } | null;
  groups: FunnelGroup[];
}

export interface RetentionResult {
  interval: 'day' | 'week';
  date_from: string;
  date_to: string;
  start_event: string;
  return_event: string;
  periods: number;
  cohorts: Array<{ cohort: string; users: number; periods: Array<{ period: number; users: number; share: number }> }>;
}
