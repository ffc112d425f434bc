import type { StoredEvent } from '../domain/event';
import type { IdentityRecord } from '../domain/identity';

/**
 * A raw stream: records appended to S3 through Firehose on AWS, to NDJSON files through the local
 * Firehose endpoint. Two of them: the raw event stream (RawEventStream: every stored event) and the
 * identity stream (IdentityStream: identity pointer changes). The Glue tables over them are the raw
 * events table and the identities table; the DynamoDB table of stored events is the event ledger.
 */
export interface RawStream<T> {
  put(records: T[]): Promise<void>;
}
export type RawEventStream = RawStream<StoredEvent>;
/** The identity stream: which canonical ID each linked ID points to, from when. */
export type IdentityStream = RawStream<IdentityRecord>;

/** What a raw stream's put throws when the stream did not accept every record. */
export class RawStreamError extends Error {
  override name = 'RawStreamError';
  /** Set when known; otherwise whether a retry may succeed follows `cause` (domain/transient-error.ts). */
  readonly transient?: boolean;

  constructor(message: string, options: { cause?: unknown; transient?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.transient = options.transient;
  }
}
