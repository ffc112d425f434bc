/** The SDK's public types. */

/** Where warnings and errors go. `debug` is called only with the `debug` option on. */
export interface Logger {
  debug?(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Synchronous key-value storage with the shape of the Web Storage API (localStorage fits as is). */
export interface PersistenceAdapter {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** An experiment's configuration: `id` is the server-side experiment UUID, which is what is hashed. */
export interface ExperimentConfig {
  id: string;
  name: string;
  variants: string[];
}

export interface TallyOptions {
  /** A project API key. Required. */
  apiKey: string;
  /** The service's base address, for example http://127.0.0.1:3000. Required. */
  baseURL: string;
  /** 'server' (default) asks the server for assignments; 'local' buckets on the device. */
  experimentMode?: 'server' | 'local';
  /** Local mode only: experiments known in advance, so no experiments request is made. */
  localExperiments?: ExperimentConfig[];
  /** How long ready() waits by default, in ms. Default 5000. */
  readyTimeoutMs?: number;
  /** How often queued events are sent, in ms. Default 5000. */
  flushIntervalMs?: number;
  /** Events per request; a full batch is sent at once. Default 50. */
  maxBatchSize?: number;
  /** Events kept while undelivered; past it the oldest are dropped with a warning. Default 1000. */
  maxQueueSize?: number;
  /** Sent as X-Tally-Bundle-ID; needed when the key restricts application identifiers. */
  bundleId?: string;
  /** 'localStorage' (the browser default), 'memory' (the default elsewhere) or an adapter. */
  persistence?: 'localStorage' | 'memory' | PersistenceAdapter;
  /** Detected: 'web' in browsers, 'node' in Node. */
  platform?: string;
  appVersion?: string;
  environment?: string;
  /** Start opted out: nothing is sent and nothing new is stored. Default false. */
  optOut?: boolean;
  /** Treat a browser's Do Not Track or Global Privacy Control signal as an opt-out. Default false. */
  respectDoNotTrack?: boolean;
  /** Default: the console. */
  logger?: Logger;
  /** Log debug messages too. Default false. */
  debug?: boolean;
}

/** What `ready()` resolves to: whether the latest assignments (or configs) request succeeded, and if not, why. */
export interface ReadyResult {
  /** True when the latest request succeeded, or local mode has its configs inline. */
  ok: boolean;
  /**
   * Why not: `key_refused` (401 or 403: getVariant returns the fallback), `unavailable` (a network
   * error or another status: the last stored answer, if any, is still used), `timeout` (no answer yet
   * within the wait), `opted_out`, or `disabled` (the options were unusable).
   */
  reason?: 'key_refused' | 'unavailable' | 'timeout' | 'opted_out' | 'disabled';
  /** The HTTP status, when the request was answered. */
  status?: number;
}

/** What `flush()` resolves to: how many events are still queued, and why. */
export interface FlushResult {
  /** Events still queued, kept for a later attempt (0: everything queued was delivered). */
  pending: number;
  /** Why events are pending: `key_refused` (kept for the next client with a working key) or `will_retry` (a network error or a busy server: sent again after a wait). */
  reason?: 'key_refused' | 'will_retry';
}

export type Properties = Record<string, unknown>;

export interface Profile {
  email?: string;
  name?: string;
}

export interface ResetOptions {
  /** Also rotate the anonymous ID and forget assignments, exposures and super properties. */
  clearAnonymousId?: boolean;
}
