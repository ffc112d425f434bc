/** The client: the public API, wiring the queue, delivery, identity, experiments and privacy together. */
import { snakeCase } from '../../lambdas/domain/experiment';
import { EventClock } from './clock';
import { detectEnvironment } from './context';
import { DEFAULTS, MAX_BATCH_SIZE } from './defaults';
import { Delivery } from './delivery';
import { Experiments } from './experiments';
import { ExposureLog } from './exposure';
import { browserSaysDoNotTrack } from './privacy';
import { EventQueue } from './queue';
import { resolveAdapter, Store } from './storage';
import { Transport } from './transport';
import type { FlushResult, Logger, Profile, Properties, ReadyResult, ResetOptions, TallyOptions } from './types';
import { uuid } from './uuid';
import { idProblem, isPlainObject, NOT_OBJECT, trackProblem } from './validate';

const ANON = 'anonymous_id';
const USER = 'user_id';
const IDENTIFY = 'identify';
const SUPER = 'super';
const OPT_OUT = 'opt_out';

export class TallyClient {
  #log: Logger;
  #store!: Store;
  #queue!: EventQueue;
  #delivery!: Delivery;
  #experiments!: Experiments;
  #exposures!: ExposureLog;
  #clock = new EventClock();
  #readyTimeoutMs: number = DEFAULTS.readyTimeoutMs;
  #anon = '';
  #user: string | undefined;
  #superProps: Properties = {};
  #optedOut = false;
  /** Set when the options are unusable: every method is then a no-op. */
  #disabled = false;
  #listeners: [EventTarget, string, () => void][] = [];

  constructor(options: TallyOptions) {
    const o: Partial<TallyOptions> = isPlainObject(options) ? options : {};
    this.#log = makeLogger(o.logger, o.debug === true);
    try {
      this.#setUp(o);
    } catch (err) {
      this.#disabled = true;
      this.#log.error(`disabled: ${String(err)}`);
    }
  }

  #setUp(o: Partial<TallyOptions>): void {
    if (typeof o.apiKey !== 'string' || !o.apiKey) throw new Error('apiKey is required');
    if (typeof o.baseURL !== 'string' || !/^https?:\/\//.test(o.baseURL)) throw new Error('baseURL must be an http(s) URL');
    const count = (value: unknown, fallback: number, max = Infinity) => (typeof value === 'number' && value >= 1 ? Math.min(Math.floor(value), max) : fallback);
    this.#readyTimeoutMs = typeof o.readyTimeoutMs === 'number' && o.readyTimeoutMs >= 0 ? o.readyTimeoutMs : DEFAULTS.readyTimeoutMs;

    this.#store = new Store(resolveAdapter(o.persistence));
    this.#optedOut = o.optOut === true || this.#store.get(OPT_OUT) === true || (o.respectDoNotTrack === true && browserSaysDoNotTrack());
    this.#store.writable = !this.#optedOut;

    const env = detectEnvironment(o as TallyOptions);
    const transport = new Transport({
      apiKey: o.apiKey,
      baseURL: o.baseURL,
      bundleId: o.bundleId,
      platform: env.context.platform,
      platformVersion: env.platformVersion,
      context: env.context,
    });
    this.#queue = new EventQueue(this.#store, count(o.maxQueueSize, DEFAULTS.maxQueueSize), this.#log);
    this.#delivery = new Delivery({
      queue: this.#queue,
      transport,
      log: this.#log,
      batchSize: count(o.maxBatchSize, DEFAULTS.maxBatchSize, MAX_BATCH_SIZE),
      intervalMs: count(o.flushIntervalMs, DEFAULTS.flushIntervalMs),
      paused: () => this.#optedOut,
    });
    const mode = o.experimentMode === 'local' ? 'local' : 'server';
    const fixed = mode === 'local' && Array.isArray(o.localExperiments) ? o.localExperiments : undefined;
    this.#experiments = new Experiments({ mode, fixed, store: this.#store, transport, log: this.#log });
    this.#exposures = new ExposureLog(this.#store);

    this.#anon = this.#store.get<string>(ANON) ?? this.#newAnonymousId();
    this.#user = this.#store.get<string>(USER);
    const saved = this.#store.get<Properties>(SUPER);
    this.#superProps = isPlainObject(saved) ? saved : {};

    this.#delivery.start();
    this.#listen('pagehide', () => this.#delivery.flushOnHide());
    this.#listen('visibilitychange', () => document.visibilityState === 'hidden' && this.#delivery.flushOnHide());
    this.#listen('online', () => void this.#delivery.flush());
    this.#loadExperiments();
    if (this.#queue.size) void this.#delivery.flush();
  }

  /** The anonymous ID: a UUID created once and persisted. */
  get anonymousId(): string {
    return this.#anon;
  }

  /** The ID given to identify(), until reset(). */
  get userId(): string | undefined {
    return this.#user;
  }

  track(name: string, properties?: Properties): void {
    this.#guard(() => {
      const problem = trackProblem(name, properties);
      if (problem) return this.#log.warn(`track dropped: ${problem}`);
      this.#enqueue(name, this.#user ?? this.#anon, { ...this.#superProps, ...properties });
    });
  }

  identify(userId: string, profile?: Profile): void {
    this.#guard(() => {
      const problem = idProblem(userId) ?? (profile !== undefined && !isPlainObject(profile) ? NOT_OBJECT : undefined);
      if (problem) return this.#log.warn(`identify dropped: ${problem}`);
      const fields: Properties = {};
      if (profile?.email !== undefined) fields.email = profile.email;
      if (profile?.name !== undefined) fields.name = profile.name;
      const signature = JSON.stringify([this.#anon, userId, fields]);
      if (this.#store.get(IDENTIFY) === signature && this.#user === userId) return;
      this.#user = userId;
      this.#store.set(USER, userId);
      this.#store.set(IDENTIFY, signature);
      this.#enqueue('$identify', userId, { $anonymous_id: this.#anon, ...fields });
      this.#loadExperiments();
    });
  }

  getVariant(experimentName: string, fallback: string): string {
    return (
      this.#guard(() => {
        // Opted out: no variant, so no exposure and no stored assignment.
        if (this.#optedOut || typeof experimentName !== 'string') return undefined;
        const distinctId = this.#user ?? this.#anon;
        const assignment = this.#experiments.variant(experimentName, distinctId);
        if (!assignment) return undefined;
        const { variant } = assignment;
        const superKey = `$experiment_${snakeCase(experimentName)}`;
        if (this.#superProps[superKey] !== variant) this.setSuperProperties({ [superKey]: variant });
        if (this.#exposures.first(distinctId, assignment.key, variant)) {
          this.#enqueue('$experiment_exposure', distinctId, { ...this.#superProps, $experiment_name: experimentName, $variant: variant });
        }
        return variant;
      }) ?? fallback
    );
  }

  /** Resolves when assignments (or configs) have loaded, or after the timeout, saying which; never rejects. */
  ready(timeoutMs?: number): Promise<ReadyResult> {
    if (this.#disabled || this.#optedOut) return Promise.resolve({ ok: false, reason: this.#disabled ? 'disabled' : 'opted_out' });
    const wait = typeof timeoutMs === 'number' && timeoutMs >= 0 ? timeoutMs : this.#readyTimeoutMs;
    return new Promise<ReadyResult>((resolve) => {
      const timer = setTimeout(() => resolve({ ok: false, reason: 'timeout' }), wait);
      void this.#experiments.loaded.finally(() => {
        clearTimeout(timer);
        resolve(this.#experiments.outcome);
      });
    });
  }

  /** Sends everything queued now (cutting short a retry wait); resolves, with what is still queued, when the queue is empty or sending has to wait. */
  flush(): Promise<FlushResult> {
    if (this.#disabled || this.#optedOut) return Promise.resolve({ pending: 0 });
    return this.#delivery
      .flush()
      .catch((err: unknown) => this.#log.error(`flush: ${String(err)}`))
      .then(() => this.#delivery.summary());
  }

  reset(options?: ResetOptions): void {
    this.#guard(() => {
      this.#user = undefined;
      this.#store.remove(USER);
      this.#store.remove(IDENTIFY);
      this.#superProps = {};
      this.#store.remove(SUPER);
      if (options?.clearAnonymousId === true) {
        this.#anon = this.#newAnonymousId();
        this.#experiments.clear();
        this.#exposures.clear();
      }
      this.#loadExperiments();
    });
  }

  setSuperProperties(properties: Properties): void {
    this.#guard(() => {
      if (!isPlainObject(properties)) return this.#log.warn(`setSuperProperties dropped: ${NOT_OBJECT}`);
      this.#superProps = { ...this.#superProps, ...properties };
      this.#store.set(SUPER, this.#superProps);
    });
  }

  unsetSuperProperty(key: string): void {
    this.#guard(() => {
      delete this.#superProps[key];
      this.#store.set(SUPER, this.#superProps);
    });
  }

  /** Stops sending and storing, and forgets the unsent queue; the choice itself is remembered. */
  optOut(): void {
    this.#guard(() => {
      this.#queue.clear();
      this.#optedOut = true;
      this.#store.writable = false;
      this.#store.set(OPT_OUT, true, true);
    });
  }

  optIn(): void {
    this.#guard(() => {
      this.#optedOut = false;
      this.#store.writable = true;
      this.#store.remove(OPT_OUT);
      this.#store.set(ANON, this.#anon);
      this.#loadExperiments();
    });
  }

  /** Flushes, then stops timers and listeners (call it before a Node process exits). */
  async shutdown(): Promise<void> {
    if (this.#disabled) return;
    await this.flush();
    this.#delivery.stop();
    for (const [target, type, fn] of this.#listeners) target.removeEventListener(type, fn);
    this.#listeners = [];
  }

  #enqueue(name: string, userId: string, properties: Properties): void {
    if (this.#optedOut) return;
    const event = { name, event_id: uuid(), timestamp: new Date(this.#clock.next()).toISOString(), user_id: userId, properties };
    try {
      JSON.stringify(event);
    } catch {
      return this.#log.warn(`${name} dropped: not JSON`);
    }
    this.#queue.push(event);
    this.#delivery.queued();
  }

  #loadExperiments(): void {
    if (!this.#optedOut) void this.#experiments.load(this.#anon, this.#user);
  }

  #newAnonymousId(): string {
    const id = uuid();
    this.#store.set(ANON, id);
    return id;
  }

  #listen(type: string, fn: () => void): void {
    if (typeof globalThis.addEventListener !== 'function') return;
    // visibilitychange fires on document, the others on window.
    const target: EventTarget | undefined = type === 'visibilitychange' ? globalThis.document : globalThis;
    if (!target) return;
    target.addEventListener(type, fn);
    this.#listeners.push([target, type, fn]);
  }

  /** Runs an API call so that it never throws into app code. */
  #guard<T>(body: () => T): T | undefined {
    if (this.#disabled) return undefined;
    try {
      return body();
    } catch (err) {
      this.#log.error(`call failed: ${String(err)}`);
      return undefined;
    }
  }
}

function makeLogger(logger: Logger | undefined, debug: boolean): Logger {
  const base: Logger = logger && typeof logger.warn === 'function' ? logger : console;
  const safe = (fn: ((m: string) => void) | undefined) => (message: string) => {
    try {
      fn?.call(base, `[tally] ${message}`);
    } catch {
      // a broken logger must not break the app
    }
  };
  return { debug: debug ? safe(base.debug) : () => undefined, warn: safe(base.warn), error: safe(base.error) };
}
