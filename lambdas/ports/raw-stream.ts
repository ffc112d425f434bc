import type { StoredEvent } from '../domain/event';
import type { IdentityRecord } from '../domain/identity';

/** A raw stream (Firehose to S3 on AWS, NDJSON files locally). */
export interface RecordSink<T> {
  put(records: T[]): Promise<void>;
}
export type EventSink = RecordSink<StoredEvent>;
/** The identity stream: which canonical ID each linked ID points to, from when. */
export type IdentitySink = RecordSink<IdentityRecord>;

/** What a raw stream's put throws when the stream did not accept every record. */
export class SinkError extends Error {
  override name = 'SinkError';
  /** Set when known; otherwise whether a retry may succeed follows `cause` (domain/transient-error.ts). */
  readonly transient?: boolean;

  constructor(message: string, options: { cause?: unknown; transient?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.transient = options.transient;
  }
}
