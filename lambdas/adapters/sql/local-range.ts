/**
 * The parameters of rules/range-events.sql for a range of local days in the project's time zone: the
 * zone, the days, and the UTC day partitions (dt) that hold every event of them
 * (docs/decisions/project-time-zone.md). Pure.
 */
import { utcDaysOf } from '../../domain/insights/local-days';

export function localRangeParams(timeZone: string, fromDay: string, toDay: string): Record<string, string> {
  const { fromDt, toDt } = utcDaysOf(timeZone, fromDay, toDay);
  return { time_zone: timeZone, from_day: fromDay, to_day: toDay, scan_from_dt: fromDt, scan_to_dt: toDt };
}
