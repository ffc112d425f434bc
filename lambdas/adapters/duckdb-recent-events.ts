/**
 * The recent-events listing locally: DuckDB in-process over the NDJSON files the local Firehose
 * endpoint writes (<dataDir>/events/project_id=<id>/dt=<day>/), the same files the results query reads
 * (duckdb-results-query.ts, which builds the view the same way). Every day of the project is read:
 * partitions are by event time, and the window is by receipt (received_at), so an event received
 * today with an old timestamp is listed too. The raw stream is written before a request is
 * acknowledged, so an acknowledged event is listed at once. An event the files hold more than once
 * (a crash between the stream write and the commit) is listed once (sql/recent-events.ts).
 */
import { join } from 'node:path';
import type { StoredEvent } from '../domain/event';
import { PROPERTY_NAMES_WINDOW_DAYS, type EventNameCount, type PropertyNameCount, type RecentEvents, type RecentFilter } from '../ports';
import { InProcessDuckDb, type LocalDuckDb } from './duckdb-local';
import { EVENT_COLUMNS, partitionFiles } from './duckdb-results-query';
import { listRecentEvents, renderEventNames, renderPropertyNames, rowToEventNameCount, rowToPropertyNameCount } from './sql/recent-events';

const VIEW = 'tally_recent_events';

export interface RecentEventsOptions {
  /** The window: events received within this many days are listed (EVENTS_RETENTION_DAYS). */
  windowDays: number;
}

export class DuckDbRecentEvents implements RecentEvents {
  constructor(
    private readonly dataDir: string,
    private readonly options: RecentEventsOptions = { windowDays: 30 },
    private readonly duckdb: LocalDuckDb = new InProcessDuckDb(),
  ) {}

  async recent(projectId: string, filter: RecentFilter, nowMs: number): Promise<StoredEvent[]> {
    const files = await partitionFiles(join(this.dataDir, 'events'), projectId);
    if (files.length === 0) return [];
    const receivedFrom = new Date(nowMs - this.options.windowDays * 86_400_000).toISOString();
    return this.duckdb.use([{ name: VIEW, files, columns: EVENT_COLUMNS }], (session) =>
      listRecentEvents((sql) => session.rows(sql), { table: VIEW, projectId, filter, receivedFrom }),
    );
  }

  async names(projectId: string, limit: number, nowMs: number): Promise<EventNameCount[]> {
    const files = await partitionFiles(join(this.dataDir, 'events'), projectId);
    if (files.length === 0) return [];
    const receivedFrom = new Date(nowMs - this.options.windowDays * 86_400_000).toISOString();
    const sql = renderEventNames({ table: VIEW, projectId, receivedFrom, limit });
    return this.duckdb.use([{ name: VIEW, files, columns: EVENT_COLUMNS }], async (session) => (await session.rows(sql)).map(rowToEventNameCount));
  }

  async propertyNames(projectId: string, limit: number, nowMs: number): Promise<PropertyNameCount[]> {
    const files = await partitionFiles(join(this.dataDir, 'events'), projectId);
    if (files.length === 0) return [];
    const days = Math.min(this.options.windowDays, PROPERTY_NAMES_WINDOW_DAYS);
    const sql = renderPropertyNames({ table: VIEW, projectId, receivedFrom: new Date(nowMs - days * 86_400_000).toISOString(), limit });
    return this.duckdb.use([{ name: VIEW, files, columns: EVENT_COLUMNS }], async (session) => (await session.rows(sql)).map(rowToPropertyNameCount));
  }

  close(): Promise<void> {
    return this.duckdb.close();
  }
}
