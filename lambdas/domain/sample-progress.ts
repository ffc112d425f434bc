/**
 * Progress toward an experiment's planned sample (planned_users, from the planning calculator): the
 * users enrolled so far against the plan, and how many days are left at the rate they enrolled at
 * over the results' window (the run so far). Pure.
 *
 * The rate is users per day over the window, at least an hour of it (a window of minutes would give
 * any rate at all); the days left are rounded up, as the plan's run time is.
 */
const DAY_MS = 86_400_000;
const MIN_ELAPSED_MS = 3_600_000;

export interface SampleProgress {
  enrolled: number;
  planned: number;
  /** enrolled / planned, capped at 1. */
  share: number;
  reached: boolean;
  /** Users per day so far; null while nobody is enrolled. */
  users_per_day: number | null;
  /** Whole days until planned at that rate (0 once reached); null while nobody is enrolled, or when stopped. */
  days_left: number | null;
}

export function sampleProgress(enrolled: number, planned: number, window: { from: string; to: string }, running: boolean): SampleProgress {
  const elapsed = Math.max(MIN_ELAPSED_MS, Date.parse(window.to) - Date.parse(window.from));
  const reached = enrolled >= planned;
  const perDay = enrolled > 0 ? enrolled / (elapsed / DAY_MS) : null;
  return {
    enrolled,
    planned,
    share: Math.min(1, enrolled / planned),
    reached,
    users_per_day: perDay,
    days_left: reached ? 0 : perDay === null || !running ? null : Math.ceil((planned - enrolled) / perDay),
  };
}
