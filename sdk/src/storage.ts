/** Persisted state behind one small interface: JSON values under `tally:` keys of an adapter. */
import type { PersistenceAdapter, TallyOptions } from './types';

const PREFIX = 'tally:';

export function memoryAdapter(): PersistenceAdapter {
  const map = new Map<string, string>();
  return {
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
  };
}

/** localStorage when asked for or, by default, when it works (it throws in some sandboxed frames). */
export function resolveAdapter(persistence: TallyOptions['persistence']): PersistenceAdapter {
  if (typeof persistence === 'object' && persistence) return persistence;
  if (persistence !== 'memory') {
    try {
      const ls = globalThis.localStorage;
      if (ls) return ls;
    } catch {
      // fall through to memory
    }
  }
  return memoryAdapter();
}

/**
 * Reads and writes never throw (full quota, private modes, corrupt values): persistence is best
 * effort and the in-memory state stays authoritative. `writable` is false while opted out, so an
 * opted-out client stores nothing new.
 */
export class Store {
  writable = true;

  readonly #adapter: PersistenceAdapter;

  constructor(adapter: PersistenceAdapter) {
    this.#adapter = adapter;
  }

  get<T>(name: string): T | undefined {
    try {
      const raw = this.#adapter.getItem(PREFIX + name);
      return raw === null ? undefined : (JSON.parse(raw) as T);
    } catch {
      return undefined;
    }
  }

  set(name: string, value: unknown, force = false): void {
    if (!this.writable && !force) return;
    try {
      this.#adapter.setItem(PREFIX + name, JSON.stringify(value));
    } catch {
      // best effort: see above
    }
  }

  remove(name: string): void {
    try {
      this.#adapter.removeItem(PREFIX + name);
    } catch {
      // best effort
    }
  }
}
