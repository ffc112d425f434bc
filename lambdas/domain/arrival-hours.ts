/**
 * The landing hours that can hold the events received in a range (docs/decisions/columnar-events.md):
 * an object lands in the hour Firehose received its oldest record, so an event lands no earlier than
 * the hour of its received_at less the longest buffering interval (900 s) and no later than the hour
 * Firehose received it, a request's lifetime after received_at. Both are within an hour, so the range's
 * hours widened by one on each side hold every such event; a reader then keeps exactly the range by
 * received_at. An open end (the year 9999) stays open. Pure.
 */
import { addHours, landingHour } from './landing-hour';

/** The last hour of the year 9999: no end. */
export const OPEN_ARRIVAL_HOUR = '9999-12-31-23';

export function arrivalHoursFor(receivedLo: string, receivedHi: string): { from: string; to: string } {
  const hour = (iso: string) => landingHour(Date.parse(iso));
  const from = addHours(hour(receivedLo), -1);
  const to = receivedHi.startsWith('9999-') ? OPEN_ARRIVAL_HOUR : addHours(hour(receivedHi), 1);
  if (!Number.isFinite(Date.parse(receivedLo)) || !Number.isFinite(Date.parse(receivedHi)))
    throw new RangeError(`not a time range: ${receivedLo} to ${receivedHi}`);
  return { from, to };
}
