/**
 * Event timestamps in ms, strictly increasing per client. The server deduplicates on
 * (name, user_id, timestamp), so two events of one name in the same millisecond (two exposures, a
 * double click) would otherwise collapse into one.
 */
export class EventClock {
  #last = 0;

  next(): number {
    this.#last = Math.max(Date.now(), this.#last + 1);
    return this.#last;
  }
}
