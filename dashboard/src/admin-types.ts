/** The admin API's response shapes the dashboard reads (docs/api.md, "Admin API"). */
export interface Project {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKey {
  id: string;
  key_prefix: string;
  plan: string;
  /** The effective limit (the plan's, or the key's own). */
  rate_limit_per_minute: number;
  allowed_origins: string[];
  allowed_bundle_ids: string[];
  created_at: string;
}

/** Only the create response carries the key's value. */
export interface CreatedKey extends ApiKey {
  key: string;
}

/** A stored event as the recent-events listing returns it; every value is shown as text. */
export interface StoredEvent {
  event_id: string | null;
  dedupe_key?: string;
  name: string;
  user_id: string;
  sent_user_id?: string | null;
  timestamp: string;
  received_at?: string;
  properties?: unknown;
  [field: string]: unknown;
}

export interface User {
  user_id: string;
  ids: string[];
  email: string | null;
  name: string | null;
  first_seen: string;
}
