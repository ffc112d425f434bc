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
  /**
   * CUPED's window before `from` (whole days, docs/decisions/cuped.md): each active user's value there is
   * the covariate of their value in the look-back, for the expected variance reduction. Unset or 0, no
   * event before `from` is read and the covariate sums are 0.
   */
  cupedLookbackDays?: number;
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
  /** CUPED's covariate x over active users (request.cupedLookbackDays): conversion's Σx and Σxy (x, y 0/1). */
  covariate_converted: number;
  covariate_converted_products: number;
  /** Count's and sum's Σx, Σx² and Σxy. */
  covariate_value_sum: number;
  covariate_value_sum_squares: number;
  covariate_value_sum_products: number;
}

/** The baseline query on an engine: DuckDB over the local files, Athena on AWS. */
export interface PlanningBaselines {
  measure(request: BaselineRequest): Promise<BaselineSums>;
  /** Releases the engine (the local DuckDB instance). */
  close?(): Promise<void> | void;
}
