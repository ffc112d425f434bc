/** What the project's recent events say about one event, for planning (lambdas/adapters/sql/planning-baseline.sql). */
export interface BaselineRequest {
  projectId: string;
  /** The project's creation time (ISO 8601): bounds the identity partitions read, as the results do. */
  projectCreatedAt: string;
  event: string;
  /** Sums this numeric property of the event per user; unset, counts the events. */
  property?: string;
  /** The look-back: events with a timestamp from this instant (ISO 8601 UTC) ... */
  from: string;
  /** ... to this one, both inclusive. */
  to: string;
}

/** The look-back's sums over active users (canonical users with any event in it). */
export interface BaselineSums {
  users: number;
  /** Active users who sent the event at least once. */
  converted: number;
  /** Sum over active users of their value (the event's count, or the property's sum; 0 without the event). */
  value_sum: number;
  value_sum_squares: number;
  /** The earliest event of the look-back (ISO 8601 UTC); null without events. */
  first_seen: string | null;
}

/** The baseline query on an engine: DuckDB over the local files, Athena on AWS. */
export interface PlanningBaselines {
  measure(request: BaselineRequest): Promise<BaselineSums>;
  /** Releases the engine (the local DuckDB instance). */
  close?(): Promise<void> | void;
}
