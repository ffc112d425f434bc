/**
 * Storage interfaces the handlers depend on. Implementations: DynamoDB (AWS and dynalite locally)
 * and Firehose (AWS, or the local Firehose endpoint that writes files).
 */
import type { ApiKeyRecord } from '../domain/api-key';
import type { StoredEvent } from '../domain/event';

export interface Project {
  id: string;
  name: string;
  created_at: string;
}

export interface ProjectStore {
  create(project: Project): Promise<void>;
  get(id: string): Promise<Project | undefined>;
  list(): Promise<Project[]>;
}

export interface ApiKeyStore {
  create(key: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  listByProject(projectId: string): Promise<ApiKeyRecord[]>;
  /** Deletes the key; returns the deleted record, or undefined when the project has no such key. */
  revoke(projectId: string, keyId: string): Promise<ApiKeyRecord | undefined>;
}

/**
 * Makes a key known to the rate limiter. On AWS: an API Gateway API key (its value is the key's hash,
 * which the authorizer returns as the usage identifier) attached to the usage plan of the key's plan.
 * Locally nothing: the local server reads the limit from the key record itself.
 */
export interface RateLimitRegistry {
  register(key: ApiKeyRecord): Promise<void>;
  unregister(key: ApiKeyRecord): Promise<void>;
}

export const NO_RATE_LIMIT_REGISTRY: RateLimitRegistry = {
  register: async () => undefined,
  unregister: async () => undefined,
};

/**
 * claimed:   this request owns the event and must store it.
 * duplicate: an identical event is already stored.
 * in_flight: another request is storing an identical event right now; retry shortly.
 */
export type ClaimOutcome = 'claimed' | 'duplicate' | 'in_flight';

/** The events ledger: which events are stored, enforced with conditional writes. */
export interface EventLedger {
  claim(projectId: string, dedupeKey: string, owner: string, nowMs: number): Promise<ClaimOutcome>;
  /** Gives up claims whose events were not stored, so a retry can store them. */
  release(projectId: string, dedupeKeys: string[], owner: string): Promise<void>;
  /** Records claimed events as stored, with their content for the recent-events listing. */
  markStored(events: StoredEvent[], nowMs: number): Promise<void>;
  recent(projectId: string, filter: RecentFilter): Promise<StoredEvent[]>;
}

export interface RecentFilter {
  userId?: string;
  name?: string;
  limit: number;
}

/** The raw event stream (Firehose to S3 on AWS, NDJSON files locally). */
export interface EventSink {
  put(events: StoredEvent[]): Promise<void>;
}

export class SinkError extends Error {
  override name = 'SinkError';
}
