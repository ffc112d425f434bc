/**
 * Experiment assignments. Server mode: GET /v1/experiments with the current IDs, the last answer
 * persisted and served at once on the next start while it is fetched again. Local mode: configs
 * (from the options or GET /v1/experiments/configs, also cached), bucketed on the device with the
 * server's own bucketing, and the first result persisted per experiment UUID.
 */
import { variantFor } from '../../lambdas/domain/bucketing';
import type { Store } from './storage';
import type { Transport } from './transport';
import type { ExperimentConfig, Logger, ReadyResult } from './types';

export interface Assignment {
  variant: string;
  /** What exposures are recorded under: the experiment's UUID when known, else its name. */
  key: string;
}

const SERVER = 'assignments';
const CONFIGS = 'configs';
const STICKY = 'sticky';

export interface ExperimentsConfig {
  mode: 'server' | 'local';
  /** Local mode's inline configs (the localExperiments option): no experiments request at all. */
  fixed: ExperimentConfig[] | undefined;
  store: Store;
  transport: Transport;
  log: Logger;
}

export class Experiments {
  #assigned: Record<string, string>;
  #configs: ExperimentConfig[];
  #sticky: Record<string, string>;
  /** Settles when the current load finished, successfully or not. */
  loaded: Promise<void> = Promise.resolve();
  /** How the latest load ended (ready() resolves to it). */
  outcome: ReadyResult = { ok: true };

  readonly #c: ExperimentsConfig;

  constructor(config: ExperimentsConfig) {
    this.#c = config;
    const { store, fixed } = config;
    this.#assigned = store.get(SERVER) ?? {};
    this.#configs = fixed ?? store.get(CONFIGS) ?? [];
    this.#sticky = store.get(STICKY) ?? {};
  }

  /** Fetches assignments (server mode, for these IDs) or configs (local mode without fixed configs). */
  load(anonymousId: string, userId: string | undefined): Promise<void> {
    if (this.#c.mode === 'local' && this.#c.fixed) return this.loaded;
    const query = new URLSearchParams({ anonymous_id: anonymousId });
    if (userId) query.set('user_id', userId);
    const path = this.#c.mode === 'server' ? `/v1/experiments?${query}` : '/v1/experiments/configs';
    // One request at a time, in call order: the identify request (both IDs) must not overtake the
    // start-up one (anonymous ID only), or the server could see the user ID first and make it canonical.
    return (this.loaded = this.loaded
      .then(() => this.#c.transport.getJson(path))
      .then(({ status, json }) => {
        const body = (json ?? {}) as { assigned_variants?: unknown; experiments?: unknown };
        this.outcome = { ok: true };
        if (this.#c.mode === 'server' && isRecord(body.assigned_variants)) {
          this.#assigned = body.assigned_variants as Record<string, string>;
          this.#c.store.set(SERVER, this.#assigned);
        } else if (this.#c.mode === 'local' && Array.isArray(body.experiments)) {
          this.#configs = body.experiments as ExperimentConfig[];
          this.#c.store.set(CONFIGS, this.#configs);
        } else {
          // A refused key: the stored answer belongs to a key that no longer works (or to another
          // project's), so getVariant returns the fallback. Any other failure keeps the stored answer.
          const refused = status === 401 || status === 403;
          if (refused) {
            this.clear();
            this.#configs = [];
            this.#c.store.remove(CONFIGS);
          }
          this.outcome = { ok: false, reason: refused ? 'key_refused' : 'unavailable', status };
          this.#c.log.warn(`experiments not loaded (${status ?? 'network error'})${refused ? ': key refused' : ''}`);
        }
      }));
  }

  /** The variant for the current ID, or undefined when none is known yet. */
  variant(name: string, id: string): Assignment | undefined {
    if (this.#c.mode === 'server') {
      const variant = this.#assigned[name];
      return typeof variant === 'string' ? { variant, key: name } : undefined;
    }
    const config = this.#configs.find((c) => c.name === name);
    if (!config || !Array.isArray(config.variants) || !config.variants.length) return undefined;
    let variant = this.#sticky[config.id];
    // identify never re-buckets: the stored variant wins over the hash of a new ID.
    if (variant === undefined || !config.variants.includes(variant)) {
      // The list as received: with weights a name repeats (9 × control, 1 × treatment for 90/10), and
      // bucketing must not deduplicate it. Exposures are keyed by the name, so one per variant still.
      variant = variantFor(config.id, id, config.variants);
      this.#sticky[config.id] = variant;
      this.#c.store.set(STICKY, this.#sticky);
    }
    return { variant, key: config.id };
  }

  /** Forget every assignment (reset with a new anonymous ID). Configs stay: they are not per user. */
  clear(): void {
    this.#assigned = {};
    this.#sticky = {};
    this.#c.store.remove(SERVER);
    this.#c.store.remove(STICKY);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
