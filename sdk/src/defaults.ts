/** Defaults and fixed limits, in one place so the README can quote them. */
export const DEFAULTS = {
  readyTimeoutMs: 5000,
  flushIntervalMs: 5000,
  maxBatchSize: 50,
  maxQueueSize: 1000,
} as const;

/** A request that has not answered by then is aborted and retried like a network error. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** The spec: SDKs gzip bodies over 1 KB. */
export const GZIP_THRESHOLD_BYTES = 1024;
/** Browsers refuse keepalive requests whose bodies add up to more than 64 KiB; leave headroom. */
export const KEEPALIVE_MAX_BYTES = 60 * 1024;
/** The server's limits (README "Limits"): names are 1-255 characters, at most 1000 events per batch. */
export const MAX_NAME_LENGTH = 255;
export const MAX_ID_LENGTH = 1024;
export const MAX_BATCH_SIZE = 1000;
/** Exposure records kept; the oldest are forgotten first. */
export const MAX_EXPOSURES = 500;
