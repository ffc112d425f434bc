/**
 * Delivery of the queue: one request at a time, batches by size and interval, and the retry rules.
 * An event leaves the queue only when the server accepted it (2xx) or refused it for good (400
 * invalid, 413 too large on its own): every other outcome keeps it for a later attempt.
 */
import { retryDelay } from './backoff';
import { KEEPALIVE_MAX_BYTES } from './defaults';
import type { EventQueue, QueuedEvent } from './queue';
import type { SendResult, Transport } from './transport';
import type { FlushResult, Logger } from './types';

export interface DeliveryConfig {
  queue: EventQueue;
  transport: Transport;
  log: Logger;
  batchSize: number;
  intervalMs: number;
  /** True while opted out: nothing is sent. */
  paused: () => boolean;
}

export class Delivery {
  /** Failed attempts in a row; 0 after a success. */
  #attempt = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #interval: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;
  /** Set by 401/403: a wrong key must not destroy data, so the queue is kept and nothing is sent. */
  #refused = false;

  readonly #c: DeliveryConfig;

  constructor(config: DeliveryConfig) {
    this.#c = config;
  }

  start(): void {
    this.#interval ??= unref(setInterval(() => this.#retryTimer || void this.#run(), this.#c.intervalMs));
  }

  stop(): void {
    clearInterval(this.#interval);
    clearTimeout(this.#retryTimer);
    this.#interval = this.#retryTimer = undefined;
  }

  /** After an event was queued: a full batch goes at once, unless a retry is being waited out. */
  queued(): void {
    if (this.#c.queue.size >= this.#c.batchSize && !this.#retryTimer) void this.#run();
  }

  /** What is still queued after a flush, and why. */
  summary(): FlushResult {
    const pending = this.#c.queue.size;
    return pending ? { pending, reason: this.#refused ? 'key_refused' : 'will_retry' } : { pending };
  }

  /** Send now, cutting short a backoff wait (flush(), the browser's `online` event). */
  flush(): Promise<void> {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    return this.#run();
  }

  /**
   * The page is being hidden and may be gone in a moment: post what fits in one keepalive request
   * without waiting. The events stay queued until the answer arrives, so if the page dies first they
   * are sent again on the next load and the server deduplicates them.
   */
  flushOnHide(): void {
    if (this.#refused || this.#c.paused() || !this.#c.queue.size) return;
    let events = this.#c.queue.peek(this.#c.batchSize);
    while (events.length > 1 && this.#c.transport.body(events).length > KEEPALIVE_MAX_BYTES) events = events.slice(0, events.length >> 1);
    void this.#c.transport.send(events, true).then((result) => this.#settle(events, result));
  }

  #run(): Promise<void> {
    return (this.#running ??= this.#loop().finally(() => (this.#running = undefined)));
  }

  async #loop(): Promise<void> {
    let size = this.#c.batchSize;
    while (this.#c.queue.size && !this.#refused && !this.#c.paused()) {
      const events = this.#c.queue.peek(size);
      const result = await this.#c.transport.send(events);
      if (result.kind === 'too_large' && events.length > 1) {
        size = Math.ceil(events.length / 2);
        continue;
      }
      if (!this.#settle(events, result)) return;
    }
  }

  /** Applies an answer to the queue; false when sending must pause (retry wait or refused key). */
  #settle(events: QueuedEvent[], result: SendResult): boolean {
    const { queue, log } = this.#c;
    switch (result.kind) {
      case 'ok':
        this.#attempt = 0;
        queue.remove(events.map((e) => e.event_id));
        return true;
      case 'invalid': {
        const named = result.indexes?.map((i) => events[i]).filter((e) => e !== undefined);
        // Indexes that name no event of the batch would resend it forever: drop the batch instead.
        const bad = named?.length ? named : events;
        log.warn(`dropped ${bad.length} invalid events: ${bad.map((e) => e.name).join()}`);
        queue.remove(bad.map((e) => e.event_id));
        return true;
      }
      case 'too_large':
        log.warn('dropped an event too large to send');
        queue.remove(events.map((e) => e.event_id));
        return true;
      case 'auth':
        if (!this.#refused) log.error(`key refused (${result.status}): sending stopped, ${queue.size} events kept for retry`);
        this.#refused = true;
        return false;
      case 'retry': {
        this.#attempt++;
        const wait = retryDelay(this.#attempt, result.retryAfter);
        log.debug?.(`retry ${this.#attempt} in ${wait} ms`);
        clearTimeout(this.#retryTimer);
        this.#retryTimer = unref(
          setTimeout(() => {
            this.#retryTimer = undefined;
            void this.#run();
          }, wait),
        );
        return false;
      }
    }
  }
}

/** SDK timers never keep a Node process alive; shutdown() is the way to deliver before exit. */
function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
