/**
 * Event validation and normalisation: what a client sends becomes the record the raw stream stores.
 * Pure: no I/O, no AWS. Both ingestion paths (/v1/events and /api/events) use it.
 *
 * Validation is hand-written rather than zod: it runs for every event on the hot path, and zod would
 * add about 90 KB to the ingestion bundle. domain/event-schema.ts holds the same rules as a zod schema
 * for the OpenAPI document; test/unit/event-schema.test.ts checks that both give the same messages.
 */
import { LIMITS } from './limits';
import { textProblem } from './client-text';
import { dedupeKey } from './dedupe';
import { checkProperties } from './event-properties';
import { idKeyProblem } from './id-key-budget';
import { IDENTIFY_EVENT } from './identity';
import type { Surface } from './surface';
import { effectiveTimestamp, parseTimestamp, toIso } from './timestamp';

/** Per-event string fields other than name; context may set any of them. */
export const EVENT_STRING_FIELDS = [
  'event_id',
  'user_id',
  'session_id',
  'platform',
  'app_version',
  'app_build_number',
  'os_version',
  'environment',
  'device_manufacturer',
  'locale',
  'timezone',
] as const;
export type EventStringField = (typeof EVENT_STRING_FIELDS)[number];

/** camelCase spellings and the client_event_id alias; the snake_case spelling wins when both are sent. */
export const FIELD_ALIASES: Record<string, string> = {
  eventId: 'event_id',
  client_event_id: 'event_id',
  clientEventId: 'event_id',
  userId: 'user_id',
  sessionId: 'session_id',
  appVersion: 'app_version',
  appBuildNumber: 'app_build_number',
  osVersion: 'os_version',
  deviceManufacturer: 'device_manufacturer',
};

/** An event as the client sent it, after aliasing and context defaults, before enrichment. */
export type SentEvent = {
  name: string;
  timestampMs: number | undefined;
  properties: Record<string, unknown>;
} & Partial<Record<EventStringField, string>>;

/** The raw event record: one line of the raw stream (docs/data-model.md, "Raw event schema"). */
export interface StoredEvent {
  project_id: string;
  /** Hash of (name, sent_user_id, timestamp): the deduplication key within the project. */
  dedupe_key: string;
  event_id: string | null;
  name: string;
  /** Canonical ID of the user (identity resolution); equals sent_user_id until IDs are linked. */
  user_id: string | null;
  /** The ID exactly as the client sent it. */
  sent_user_id: string | null;
  session_id: string | null;
  /** ISO 8601 UTC with milliseconds. */
  timestamp: string;
  received_at: string;
  properties: Record<string, unknown>;
  platform: string | null;
  app_version: string | null;
  app_build_number: string | null;
  os_version: string | null;
  environment: string | null;
  device_manufacturer: string | null;
  locale: string | null;
  timezone: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  sdk: string | null;
  sdk_version: string | null;
  /** Which path received it: "v1" (/v1/events) or "api" (/api/events). */
  source: IngestSurface;
}

/**
 * Every field of the stored record, in the record's order: the one list the raw events table's columns
 * (lib/raw-columns.ts), the DuckDB views and the recent-events query derive from. The `satisfies`
 * makes the type check fail when a field is added to or removed from StoredEvent but not here.
 */
export const STORED_EVENT_FIELDS = Object.keys({
  project_id: true,
  dedupe_key: true,
  event_id: true,
  name: true,
  user_id: true,
  sent_user_id: true,
  session_id: true,
  timestamp: true,
  received_at: true,
  properties: true,
  platform: true,
  app_version: true,
  app_build_number: true,
  os_version: true,
  environment: true,
  device_manufacturer: true,
  locale: true,
  timezone: true,
  country: true,
  region: true,
  city: true,
  sdk: true,
  sdk_version: true,
  source: true,
} satisfies Record<keyof StoredEvent, true>) as ReadonlyArray<keyof StoredEvent>;

/** The surfaces that ingest events (domain/surface.ts): /v1/events and /api/events. */
export type IngestSurface = Exclude<Surface, 'admin'>;

export interface ValidationDetail {
  index: number;
  error: string;
}

export type BatchResult =
  | { ok: true; events: SentEvent[] }
  | { ok: false; kind: 'payload'; error: string }
  | { ok: false; kind: 'too_many'; error: string }
  | { ok: false; kind: 'validation'; details: ValidationDetail[] };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates a whole batch body ({ events, context? }). Every event is checked before the caller
 * stores anything: one failing event rejects the batch (spec rule 1).
 */
export function parseBatch(body: unknown): BatchResult {
  if (!isPlainObject(body) || !Array.isArray(body.events)) {
    return { ok: false, kind: 'payload', error: 'body must be a JSON object with an "events" array' };
  }
  if (body.context !== undefined && !isPlainObject(body.context)) {
    return { ok: false, kind: 'payload', error: '"context" must be a JSON object' };
  }
  if (body.events.length > LIMITS.maxEventsPerBatch) {
    return {
      ok: false,
      kind: 'too_many',
      error: `A batch may hold at most ${LIMITS.maxEventsPerBatch} events; this one has ${body.events.length}. Split it into smaller batches.`,
    };
  }
  const context = contextDefaults(body.context);
  const events: SentEvent[] = [];
  const details: ValidationDetail[] = [];
  body.events.forEach((raw, index) => {
    const result = parseEvent(raw, context);
    if (typeof result === 'string') details.push({ index, error: result });
    else events.push(result);
  });
  return details.length > 0 ? { ok: false, kind: 'validation', details } : { ok: true, events };
}

/** A batch's context: the string fields it sets, and each one's problem, checked once for the batch. */
interface ContextDefaults {
  values: Partial<Record<EventStringField, unknown>>;
  problems: Partial<Record<EventStringField, string>>;
}

/**
 * The string fields a batch's context sets for every event that does not set them itself. Per-event
 * only: a context never sets name, properties or timestamp (spec).
 */
function contextDefaults(context: Record<string, unknown> | undefined): ContextDefaults {
  const out: ContextDefaults = { values: {}, problems: {} };
  if (!context) return out;
  for (const f of EVENT_STRING_FIELDS) {
    const v = ownFieldValue(context, f);
    if (v === undefined) continue;
    out.values[f] = v;
    const problem = fieldProblem(f, v);
    if (problem) out.problems[f] = problem;
  }
  return out;
}

/** The value of a field set by an event (or a context) itself: snake_case first, then its aliases, the last of FIELD_ALIASES winning. */
function ownFieldValue(raw: Record<string, unknown>, f: EventStringField): unknown {
  if (f in raw) return raw[f];
  const aliases = ALIASES_OF[f];
  if (aliases) {
    for (let i = aliases.length - 1; i >= 0; i--) if (aliases[i]! in raw) return raw[aliases[i]!];
  }
  return undefined;
}

const ALIASES_OF: Partial<Record<EventStringField, string[]>> = {};
for (const [alias, canonical] of Object.entries(FIELD_ALIASES)) (ALIASES_OF[canonical as EventStringField] ??= []).push(alias);

function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return name === undefined ? 'name is required' : 'name must be a string';
  if (name.length < 1) return 'name must not be empty';
  if (name.length > LIMITS.maxEventNameLength) return `name is longer than ${LIMITS.maxEventNameLength} characters`;
  return textProblem('name', name);
}

/** The rule of the ID and device fields, and of an `$identify`'s $anonymous_id. */
function fieldProblem(label: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `${label} must be a string`;
  if (value.length < 1) return `${label} must not be empty (leave it out instead)`;
  if (value.length > LIMITS.maxFieldLength) return `${label} is longer than ${LIMITS.maxFieldLength} characters`;
  return textProblem(label, value);
}

/** Returns the event, or a readable error naming the failing fields (in schema order, joined by "; "). */
function parseEvent(raw: unknown, context: ContextDefaults): SentEvent | string {
  if (!isPlainObject(raw)) return 'event must be a JSON object';
  const problems: string[] = [];
  const name = raw.name;
  const nameError = nameProblem(name);
  if (nameError) problems.push(nameError);
  const properties = raw.properties === undefined ? {} : raw.properties;
  let propertiesBound = 0;
  if (!isPlainObject(properties)) problems.push('properties must be a JSON object');
  else {
    const checked = checkProperties(properties);
    if (checked.problem) problems.push(checked.problem);
    propertiesBound = checked.jsonBytesBound;
  }
  const event = { name, timestampMs: undefined, properties } as SentEvent;
  for (const f of EVENT_STRING_FIELDS) {
    // The event's own value, else the context's, whose problem was found once for the batch.
    let v = ownFieldValue(raw, f);
    let problem: string | undefined;
    if (v !== undefined) problem = fieldProblem(f, v);
    else {
      v = context.values[f];
      if (v === undefined) continue;
      problem = context.problems[f];
    }
    if (problem) problems.push(problem);
    else event[f] = v as string;
  }
  if (problems.length > 0) return problems.join('; ');
  const timestamp = raw.timestamp;
  if (timestamp !== undefined && timestamp !== null) {
    const ts = parseTimestamp(timestamp);
    if (!ts.ok) return ts.error;
    event.timestampMs = ts.ms;
  }
  const idProblem = identityIdProblem(event.name, event.user_id, event.properties);
  if (idProblem) return idProblem;
  // Most properties are far below the limit by the walk's bound alone; only the rest are serialised.
  if (propertiesBound > LIMITS.maxPropertiesBytes) {
    const bytes = Buffer.byteLength(JSON.stringify(event.properties));
    if (bytes > LIMITS.maxPropertiesBytes) return `properties are ${bytes} bytes as JSON; the limit is ${LIMITS.maxPropertiesBytes}`;
  }
  return event;
}

/**
 * The IDs an event makes part of identity keys: its user_id, and an `$identify`'s $anonymous_id, which
 * follows the rule of the ID fields (a string, not empty, the text rule) and the key budget.
 */
function identityIdProblem(name: string, userId: string | undefined, properties: Record<string, unknown>): string | undefined {
  const anonymousId = name === IDENTIFY_EVENT ? properties.$anonymous_id : undefined;
  const anonymousLabel = 'properties.$anonymous_id';
  return (
    (userId === undefined ? undefined : idKeyProblem('user_id', userId)) ??
    (anonymousId === undefined ? undefined : (fieldProblem(anonymousLabel, anonymousId) ?? idKeyProblem(anonymousLabel, anonymousId as string)))
  );
}

/** What the request itself tells about every event of the batch. */
export interface RequestFacts {
  projectId: string;
  receivedMs: number;
  source: IngestSurface;
  sdk: string | null;
  sdkVersion: string | null;
  geo: { country: string | null; region: string | null; city: string | null };
}

/**
 * An event as received, before identity resolution: everything the raw record holds but the canonical
 * user ID, which resolution reads these fields to find (services/resolve-identities.ts).
 */
export type ReceivedEvent = Omit<StoredEvent, 'user_id'>;

/**
 * Canonical user IDs by sent ID, as identity resolution returned them. A sent ID missing from it is
 * its own canonical ID.
 */
export type CanonicalIds = ReadonlyMap<string, string>;

/** Builds the raw record, with its canonical user ID (the ID as sent stays in sent_user_id). */
export function toStoredEvent(sent: SentEvent, facts: RequestFacts, canonical: CanonicalIds = new Map()): StoredEvent {
  return withCanonicalUser(toReceivedEvent(sent, facts), canonical);
}

/**
 * The raw record of a received event: its user_id is the canonical ID of the ID it was sent with.
 * Fields are listed rather than spread: this runs for every event, and the key order is the record's.
 */
export function withCanonicalUser(received: ReceivedEvent, canonical: CanonicalIds): StoredEvent {
  const e = received;
  const userId = e.sent_user_id === null ? null : (canonical.get(e.sent_user_id) ?? e.sent_user_id);
  return {
    project_id: e.project_id,
    dedupe_key: e.dedupe_key,
    event_id: e.event_id,
    name: e.name,
    user_id: userId,
    sent_user_id: e.sent_user_id,
    session_id: e.session_id,
    timestamp: e.timestamp,
    received_at: e.received_at,
    properties: e.properties,
    platform: e.platform,
    app_version: e.app_version,
    app_build_number: e.app_build_number,
    os_version: e.os_version,
    environment: e.environment,
    device_manufacturer: e.device_manufacturer,
    locale: e.locale,
    timezone: e.timezone,
    country: e.country,
    region: e.region,
    city: e.city,
    sdk: e.sdk,
    sdk_version: e.sdk_version,
    source: e.source,
  };
}

export function toReceivedEvent(sent: SentEvent, facts: RequestFacts): ReceivedEvent {
  const ms = effectiveTimestamp(sent.timestampMs, facts.receivedMs, LIMITS.maxFutureSkewMs);
  const sentUserId = sent.user_id ?? null;
  return {
    project_id: facts.projectId,
    dedupe_key: dedupeKey(sent.name, sentUserId, ms),
    event_id: sent.event_id ?? null,
    name: sent.name,
    sent_user_id: sentUserId,
    session_id: sent.session_id ?? null,
    timestamp: toIso(ms),
    received_at: toIso(facts.receivedMs),
    properties: sent.properties,
    platform: sent.platform ?? null,
    app_version: sent.app_version ?? null,
    app_build_number: sent.app_build_number ?? null,
    os_version: sent.os_version ?? null,
    environment: sent.environment ?? null,
    device_manufacturer: sent.device_manufacturer ?? null,
    locale: sent.locale ?? null,
    timezone: sent.timezone ?? null,
    country: facts.geo.country,
    region: facts.geo.region,
    city: facts.geo.city,
    sdk: facts.sdk,
    sdk_version: facts.sdkVersion,
    source: facts.source,
  };
}

/** A duplicate inside one batch is stored once: the first occurrence wins. */
export function uniqueByDedupeKey<T extends Pick<StoredEvent, 'dedupe_key'>>(events: T[]): T[] {
  const seen = new Set<string>();
  return events.filter((e) => (seen.has(e.dedupe_key) ? false : (seen.add(e.dedupe_key), true)));
}
