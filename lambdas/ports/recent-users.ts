/** One user of the recent-users listing: a canonical ID and what its recent events say about it. */
export interface RecentUser {
  /** The canonical user ID the events were stored under. */
  user_id: string;
  /** The IDs those events were sent with (linked IDs), the most recently seen first: at most RECENT_USER_IDS_SHOWN. */
  ids: string[];
  /** How many distinct IDs the events were sent with (ids may show fewer). */
  id_count: number;
  /** Events received within the window (duplicates counted once). */
  events: number;
  /** The newest event's timestamp (ISO 8601 UTC). */
  last_seen: string;
}

export interface RecentUsersFilter {
  /** Keeps users any of whose IDs (canonical or as sent), or whose email or name as an `$identify` sent it, contains this text, case-insensitively. */
  search?: string;
  limit: number;
  /** Only users after this one in the listing's order (last_seen descending, then user_id): the next page. */
  after?: RecentUsersPosition;
}

/** A place in the listing's order: the last user of a page. */
export interface RecentUsersPosition {
  last_seen: string;
  user_id: string;
}

/**
 * The recent-users listing, read from the raw event stream like the recent-events listing (DuckDB
 * over the local NDJSON files, Athena over the latest partitions on AWS), within the same window:
 * users with events received in it, the most recently seen first.
 */
export interface RecentUsers {
  recent(projectId: string, filter: RecentUsersFilter, nowMs: number): Promise<RecentUser[]>;
  /** Releases the engine (the local DuckDB instance). */
  close?(): Promise<void> | void;
}
