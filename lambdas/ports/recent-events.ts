import type { StoredEvent } from '../domain/event';

export interface RecentFilter {
  /** Matches events whose canonical user_id or ID as sent (sent_user_id) is one of these (a person's linked IDs). */
  userIds?: readonly string[];
  name?: string;
  limit: number;
}

/**
 * The recent-events listing, read from the raw event stream: DuckDB over the local NDJSON files,
 * Athena over the latest partitions on AWS (docs/architecture.md, "The recent-events listing").
 * Newest first by event timestamp; every event received within the window is searched.
 */
/** An event name received within the window: how many events (each once) and the newest timestamp. */
export interface EventNameCount {
  name: string;
  events: number;
  last_seen: string;
}

/** A property name the events of the property-names window carried: on how many events (each once). */
export interface PropertyNameCount {
  name: string;
  events: number;
}

/**
 * The property names are read from at most this many days of events (received), the latest: the
 * names a project uses show within days, and the scan (the properties of every event in the window)
 * stays bounded however long the events listing's window is.
 */
export const PROPERTY_NAMES_WINDOW_DAYS = 7;

export interface RecentEvents {
  recent(projectId: string, filter: RecentFilter, nowMs: number): Promise<StoredEvent[]>;
  /** The event names received within the window, the most events first (then by name), at most `limit`. */
  names(projectId: string, limit: number, nowMs: number): Promise<EventNameCount[]>;
  /**
   * The top-level property names of the events received within the last min(window,
   * PROPERTY_NAMES_WINDOW_DAYS) days, on the most events first (then by name), at most `limit`.
   */
  propertyNames(projectId: string, limit: number, nowMs: number): Promise<PropertyNameCount[]>;
  /** Releases the engine (the local DuckDB instance). */
  close?(): Promise<void> | void;
}
