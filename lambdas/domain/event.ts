/**
 * Event validation and normalisation: what a client sends becomes the record the raw stream stores.
 * Pure: no I/O, no AWS. Both ingestion paths (/v1/events and /api/events) use it.
 */
import * as z from 'zod';
import { LIMITS } from './limits';
import { dedupeKey } from './dedupe';
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
const ALIASES: Record<string, string> = {
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

/** Per-event only: a batch's context never sets these (spec). */
const NOT_FROM_CONTEXT = new Set(['name', 'properties', 'timestamp']);

const field = (label: string) =>
  z
    .string({ error: `${label} must be a string` })
    .min(1, `${label} must not be empty (leave it out instead)`)
    .max(LIMITS.maxFieldLength, `${label} is longer than ${LIMITS.maxFieldLength} characters`)
    .optional();

export const SentEventSchema = z.object({
  name: z
    .string({ error: (iss) => (iss.input === undefined ? 'name is required' : 'name must be a string') })
    .min(1, 'name must not be empty')
    .max(LIMITS.maxEventNameLength, `name is longer than ${LIMITS.maxEventNameLength} characters`),
  timestamp: z.unknown().optional(),
  properties: z.record(z.string(), z.unknown(), { error: 'properties must be a JSON object' }).optional(),
  ...(Object.fromEntries(EVENT_STRING_FIELDS.map((f) => [f, field(f)])) as Record<EventStringField, ReturnType<typeof field>>),
});

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

function contextDefaults(context: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!context) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(unalias(context))) {
    if (!NOT_FROM_CONTEXT.has(key)) out[key] = value;
  }
  return out;
}

function unalias(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...raw };
  for (const [alias, canonical] of Object.entries(ALIASES)) {
    if (alias in raw) {
      if (!(canonical in raw)) out[canonical] = raw[alias];
      delete out[alias];
    }
  }
  return out;
}

/** Returns the event, or a readable error naming the first failing fields. */
function parseEvent(raw: unknown, context: Record<string, unknown>): SentEvent | string {
  if (!isPlainObject(raw)) return 'event must be a JSON object';
  const merged = { ...context, ...unalias(raw) };
  const parsed = SentEventSchema.safeParse(merged);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => issue.message).join('; ');
  }
  const { timestamp, properties = {}, ...rest } = parsed.data;
  let timestampMs: number | undefined;
  if (timestamp !== undefined && timestamp !== null) {
    const ts = parseTimestamp(timestamp);
    if (!ts.ok) return ts.error;
    timestampMs = ts.ms;
  }
  const idProblem = identityIdProblem(rest.name, rest.user_id, properties);
  if (idProblem) return idProblem;
  const propertiesBytes = Buffer.byteLength(JSON.stringify(properties));
  if (propertiesBytes > LIMITS.maxPropertiesBytes) {
    return `properties are ${propertiesBytes} bytes as JSON; the limit is ${LIMITS.maxPropertiesBytes}`;
  }
  const event: SentEvent = { name: rest.name, timestampMs, properties };
  for (const f of EVENT_STRING_FIELDS) {
    const v = rest[f];
    if (v !== undefined) event[f] = v;
  }
  return event;
}

/** The IDs an event makes part of identity keys: its user_id, and an `$identify`'s $anonymous_id. */
function identityIdProblem(name: string, userId: string | undefined, properties: Record<string, unknown>): string | undefined {
  const anonymousId = name === IDENTIFY_EVENT ? properties.$anonymous_id : undefined;
  return (
    (userId === undefined ? undefined : idKeyProblem('user_id', userId)) ??
    (typeof anonymousId === 'string' ? idKeyProblem('properties.$anonymous_id', anonymousId) : undefined)
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

/** The raw record of a received event: its user_id is the canonical ID of the ID it was sent with. */
export function withCanonicalUser(received: ReceivedEvent, canonical: CanonicalIds): StoredEvent {
  const { project_id, dedupe_key, event_id, name, ...rest } = received;
  const userId = received.sent_user_id === null ? null : (canonical.get(received.sent_user_id) ?? received.sent_user_id);
  return { project_id, dedupe_key, event_id, name, user_id: userId, ...rest };
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
