/**
 * The day a relative range ends when an insight is opened (domain/insights/relative-range.ts): today
 * in the open project's time zone (its `time_zone`, UTC when unset), by the browser's clock (tests
 * move it). The shell sets the zone when it knows the project (app.tsx), before a project page renders.
 */
let zone = 'UTC';

export function setProjectTimeZone(timeZone: string | undefined): void {
  zone = timeZone ?? 'UTC';
}

/** YYYY-MM-DD of now in the project's zone (en-CA formats dates as ISO days). */
export const today = (): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(Date.now()));
