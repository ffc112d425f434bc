/** The persisted, bounded queue of events not yet accepted by the server. */
import type { Logger } from './types';
import type { Store } from './storage';

/** One event as sent to POST /v1/events; event_id and timestamp are fixed when it is tracked. */
export interface QueuedEvent {
  name: string;
  event_id: string;
  timestamp: string;
  user_id: string;
  properties: Record<string, unknown>;
}

const KEY = 'queue';

export class EventQueue {
  #items: QueuedEvent[];

  readonly #store: Store;
  readonly #maxSize: number;
  readonly #log: Logger;

  constructor(store: Store, maxSize: number, log: Logger) {
    this.#store = store;
    this.#maxSize = maxSize;
    this.#log = log;
    const saved = store.get<QueuedEvent[]>(KEY);
    this.#items = Array.isArray(saved) ? saved : [];
  }

  get size(): number {
    return this.#items.length;
  }

  push(event: QueuedEvent): void {
    this.#items.push(event);
    const over = this.#items.length - this.#maxSize;
    if (over > 0) {
      this.#items.splice(0, over);
      this.#log.warn(`queue full: dropped ${over} oldest events`);
    }
    this.#save();
  }

  peek(count: number): QueuedEvent[] {
    return this.#items.slice(0, count);
  }

  /** Removes by event_id, not position: events may be added or dropped while a batch is in flight. */
  remove(ids: Iterable<string>): void {
    const gone = new Set(ids);
    this.#items = this.#items.filter((e) => !gone.has(e.event_id));
    this.#save(gone);
  }

  /** Forgets every queued event, other tabs' stored ones included (opt-out). */
  clear(): void {
    this.#items = [];
    this.#store.set(KEY, []);
  }

  /**
   * Other tabs of the site write the same key: their stored events are kept, so events of a tab
   * that dies first are sent by the next page that starts. Writes are not atomic across tabs, so an
   * event may come back after it was delivered and be sent again; the server deduplicates it.
   */
  #save(gone?: Set<string>): void {
    const mine = new Set(this.#items.map((e) => e.event_id));
    const stored = this.#store.get<QueuedEvent[]>(KEY);
    const others = Array.isArray(stored) ? stored.filter((e) => !mine.has(e.event_id) && !gone?.has(e.event_id)) : [];
    this.#store.set(KEY, [...others, ...this.#items].slice(-this.#maxSize));
  }
}
