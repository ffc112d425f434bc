/** Identity links: first sight of each ID, links between IDs, and the groups they form. */
import type { SeenId } from '../domain/canonical-order';

export interface IdentityItem extends SeenId {
  pk: string;
  project_id: string;
  canonical_id: string;
  canonical_pk: string;
  /** How many times canonical_id changed; absent (0) on an item that never moved. */
  version?: number;
  email?: string;
  email_at?: number;
  name?: string;
  name_at?: number;
  /** The earliest `timestamp` (ms) of the events sent with this ID, kept as the minimum (domain/first-seen.ts); absent before its first event. */
  first_event_ms?: number;
}

/** One pointer change: `id` now points at `canonical_id`, the item's `version`-th change. */
export interface PointerChange {
  id: string;
  canonical_id: string;
  version: number;
  reason: 'link' | 'merge' | 'compress';
}

/** Where pointer changes are recorded (the identity stream). */
export interface IdentityJournal {
  /** Before a root is re-pointed; must be durable when it returns, so the stream never misses a merge. */
  beforeMerge(change: PointerChange): Promise<void>;
  /** After pointers moved to shorten paths (members of a merged root, compressed chains). */
  moved(changes: PointerChange[]): Promise<void>;
}

export interface LinkResult {
  canonical: string;
  /** IDs whose canonical ID this call changed (the loser root and the members it re-pointed). */
  moved: string[];
}

export interface UserGroup {
  canonical: IdentityItem;
  members: IdentityItem[];
}

export interface ObserveOptions {
  /** Pairs of these IDs about to be linked: the later-appearing one is created after the other. */
  links?: Array<[string, string]>;
  /** Receives the pointers shortened while resolving; without it nothing is shortened. */
  journal?: IdentityJournal;
  /** Each ID's earliest event time (ms) in this batch: kept on its item as `first_event_ms` where older than the one kept. */
  eventTimes?: ReadonlyMap<string, number>;
  /** The items of these IDs as screen read them (consistently, just before): observe does not read them again. */
  seen?: ReadonlyMap<string, IdentityItem>;
}

export interface IdentityStore {
  observe(projectId: string, ids: string[], seenMs: number, options?: ObserveOptions): Promise<Map<string, string>>;
  link(projectId: string, a: string, b: string, seenMs: number, journal?: IdentityJournal): Promise<LinkResult>;
  group(projectId: string, id: string): Promise<UserGroup | undefined>;
  updateProfile(projectId: string, id: string, fields: { email?: string; name?: string }, atMs: number): Promise<void>;
  /** Which of these IDs are suppressed (domain/suppression.ts), and the items of the others, read once. */
  screen(projectId: string, ids: string[]): Promise<{ suppressed: Set<string>; seen: Map<string, IdentityItem> }>;
  /** Suppresses these IDs in the project (permanent; the marker holds a digest, not the ID). */
  suppress(projectId: string, ids: readonly string[], atMs: number): Promise<void>;
}
