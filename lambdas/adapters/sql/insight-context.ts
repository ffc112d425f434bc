/** What every insight kind's query is rendered from besides its definition (docs/decisions/insights.md). */
export interface InsightSqlContext {
  projectId: string;
  /** The project's creation time (ISO 8601): bounds the identity partitions read, as the results do. */
  projectCreatedAt: string;
  /** The arrival watermark (ISO 8601 UTC): events received after it are left out. */
  dataThrough: string;
  /** The project's time zone (IANA name, or UTC): days, weeks and hours are its local ones. */
  timeZone: string;
  /**
   * The engine's table names: the events as their two parts (the curated table and the events_tail
   * view: rules/range-events.sql) and the identities view.
   */
  tables: InsightTables;
}

/** The tables an insight's text reads, by its {{...}} names. */
export interface InsightTables {
  curated_events: string;
  events_tail: string;
  identities: string;
}
