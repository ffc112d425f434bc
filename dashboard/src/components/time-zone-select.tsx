/**
 * A project's time zone, chosen from the browser's IANA list plus UTC (the API accepts every name of
 * those zones, docs/api.md "Projects"). The project's current name is kept in the list even where the
 * browser lists the zone under another name (Asia/Kolkata, Asia/Calcutta).
 */
import { DEFAULT_TIME_ZONE } from '../../../lambdas/domain/time-zone';

export function timeZoneNames(current: string): string[] {
  const names = new Set<string>([DEFAULT_TIME_ZONE, ...Intl.supportedValuesOf('timeZone')]);
  names.add(current);
  return [DEFAULT_TIME_ZONE, ...[...names].filter((n) => n !== DEFAULT_TIME_ZONE).sort()];
}

export function TimeZoneSelect({ id, name, value }: { id: string; name: string; value: string }) {
  return (
    <select id={id} name={name} value={value}>
      {timeZoneNames(value).map((zone) => (
        <option key={zone} value={zone}>
          {zone}
        </option>
      ))}
    </select>
  );
}
