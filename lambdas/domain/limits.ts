/**
 * Documented limits (docs/api.md, "Limits"). One place, so the API, the docs and the tests agree.
 * Sizes are bytes.
 */
export const LIMITS = {
  /** Body as received on the wire (compressed or not). Below API Gateway's 10 MB and Lambda's 6 MB payload cap. */
  maxBodyBytes: 1024 * 1024,
  /** Body after gzip decompression; decompression stops here, so a gzip bomb never allocates more. */
  maxDecompressedBytes: 5 * 1024 * 1024,
  maxEventsPerBatch: 1000,
  /** JSON.stringify(properties) of one event. Keeps a stored event well below DynamoDB's 400 KB item cap. */
  maxPropertiesBytes: 32 * 1024,
  /** Objects and arrays nested inside each other, counted from the body's top level. */
  maxJsonDepth: 32,
  /**
   * Array elements plus object members in one body (domain/json-shape.ts counts them). 100 per event of
   * a full 1,000-event batch, where a typical event has 10-20; and far above what one valid event can
   * hold (its properties are at most 32 KiB, so about 16,400 values), so an SDK that halves a batch on
   * 413 always gets through. With maxJsonKeys it bounds what JSON.parse builds from a body within
   * the limits: about 13 ms at most on a loaded 2-core machine.
   */
  maxJsonValues: 100_000,
  /**
   * Distinct object keys in one body, as written. JSON.parse pays for each new key (a new hidden class,
   * an interned string): 100,000 distinct keys cost it 50-130 ms on a loaded 2-core machine, 10,000 at
   * most about 13 ms. Events share a small vocabulary of property names; one valid event holds at most
   * about 4,700 keys (32 KiB of properties), so a halved batch always gets through.
   */
  maxJsonKeys: 10_000,
  maxEventNameLength: 255,
  /** user_id, session_id, event_id and the device fields. */
  maxFieldLength: 1024,
  /** user_id and $anonymous_id as UTF-8: they become DynamoDB key parts (domain/id-key-budget.ts). */
  maxIdBytes: 1024,
  /** Timestamps further ahead than this are clamped to arrival time (spec). */
  maxFutureSkewMs: 48 * 60 * 60 * 1000,
} as const;
