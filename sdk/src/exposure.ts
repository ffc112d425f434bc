/** Which (user, experiment, variant) exposures were already tracked, persisted so a reload does not repeat one. */
import { MAX_EXPOSURES } from './defaults';
import type { Store } from './storage';

const KEY = 'exposures';

export class ExposureLog {
  #seen: string[];

  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
    const saved = store.get<string[]>(KEY);
    this.#seen = Array.isArray(saved) ? saved : [];
  }

  /** True the first time a combination is seen, and records it. */
  first(userId: string, experiment: string, variant: string): boolean {
    const key = JSON.stringify([userId, experiment, variant]);
    if (this.#seen.includes(key)) return false;
    this.#seen.push(key);
    if (this.#seen.length > MAX_EXPOSURES) this.#seen.shift();
    this.#store.set(KEY, this.#seen);
    return true;
  }

  clear(): void {
    this.#seen = [];
    this.#store.remove(KEY);
  }
}
