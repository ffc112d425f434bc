/**
 * Storage interfaces the handlers depend on. Implementations: DynamoDB (AWS and dynalite locally)
 * and Firehose (AWS, or the local Firehose endpoint that writes files).
 */
import type { ApiKeyRecord } from '../domain/api-key';
import type { StoredEvent } from '../domain/event';
import type { IdentityRecord } from '../domain/identity';
import type { IdentityItem, IdentityJournal, LinkResult, ObserveOptions, PointerChange, UserGroup } from './identity-store';
import type { Experiment, Transition } from '../domain/experiment';
import type { Comparison, Srm, VariantStats } from '../domain/stats';
import type { ExperimentPatch } from './experiment-store';
import type { Assignment } from './assignment-store';

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

/** A raw stream (Firehose to S3 on AWS, NDJSON files locally). */
export interface RecordSink<T> {
  put(records: T[]): Promise<void>;
}
export type EventSink = RecordSink<StoredEvent>;
/** The identity stream: which canonical ID each linked ID points to, from when. */
export type IdentitySink = RecordSink<IdentityRecord>;

export interface IdentityStore {
  observe(projectId: string, ids: string[], seenMs: number, options?: ObserveOptions): Promise<Map<string, string>>;
  link(projectId: string, a: string, b: string, seenMs: number, journal?: IdentityJournal): Promise<LinkResult>;
  group(projectId: string, id: string): Promise<UserGroup | undefined>;
  updateProfile(projectId: string, id: string, fields: { email?: string; name?: string }, atMs: number): Promise<void>;
}
export type { IdentityItem, IdentityJournal, PointerChange };

export class SinkError extends Error {
  override name = 'SinkError';
  /** Set when known; otherwise whether a retry may succeed follows `cause` (domain/transient-error.ts). */
  readonly transient?: boolean;

  constructor(message: string, options: { cause?: unknown; transient?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.transient = options.transient;
  }
}

export interface ExperimentStore {
  create(experiment: Experiment): Promise<void>;
  get(projectId: string, id: string): Promise<Experiment | undefined>;
  list(projectId: string): Promise<Experiment[]>;
  update(current: Experiment, patch: ExperimentPatch): Promise<Experiment>;
  transition(projectId: string, id: string, transition: Transition, atIso: string): Promise<Experiment>;
}

export interface AssignmentStore {
  getMany(projectId: string, experimentIds: string[], userId: string): Promise<Map<string, string>>;
  assign(projectId: string, assignment: Assignment, atIso: string): Promise<string>;
}

/** Computed results of an experiment, as GET .../results returns them. */
export interface ExperimentResults {
  experiment_id: string;
  status: string;
  computed_at: string;
  window: { from: string; to: string };
  variants: VariantStats[];
  comparisons: Comparison[];
  srm: Srm;
  multiple_exposures: number;
}

export interface ResultsStore {
  put(projectId: string, results: ExperimentResults): Promise<void>;
  get(projectId: string, experimentId: string): Promise<ExperimentResults | undefined>;
}

/** What the results query counts for one experiment run (README "Experiment results"). */
export interface CountRequest {
  projectId: string;
  experimentId: string;
  /** The experiment's name as configured; exposures may carry it or its snake_case form. */
  experimentName: string;
  variants: string[];
  goalEvent: string;
  /** The run: started_at to stopped_at (or now while running), ISO 8601 UTC. */
  from: string;
  to: string;
  /** The project's created_at: no identity link of the project is older, so older days are not read. */
  projectCreatedAt: string;
}

export interface CountResult {
  /** One entry per configured variant, in configuration order (zeros included). */
  variants: Array<{ variant: string; enrolled: number; converted: number }>;
  /** Canonical users whose enrollment events named more than one variant of this experiment. */
  multipleExposures: number;
  /** Raw rows the engine read (DuckDB locally; Athena reports bytes scanned instead). */
  rowsRead?: number;
  bytesScanned?: number;
}

/** Runs the counting SQL: DuckDB over the local NDJSON files, Athena over S3 on AWS. */
export interface CountOptions {
  /**
   * Epoch ms after which the query is abandoned (stopped where the engine allows) and count() throws
   * DeadlineExceeded (lambdas/domain/deadline.ts). Unset: only the engine's own wait limit applies.
   */
  deadlineMs?: number;
}

export interface ResultsQuery {
  count(request: CountRequest, options?: CountOptions): Promise<CountResult>;
  /** Releases the engine (the local DuckDB instance). */
  close?(): Promise<void> | void;
}
