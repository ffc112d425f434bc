/**
 * The recent-events listing locally: DuckDB over the project's events view (duckdb-stream-views.ts:
 * its curated partitions plus the landing hours not yet compacted), as the results query reads it. Every day of the project is read:
 * partitions are by event time, and the window is by receipt (received_at), so an event received
 * today with an old timestamp is listed too. The raw stream is written before a request is
 * acknowledged, so an acknowledged event is listed at once. An event the files hold more than once
 * (a crash between the stream write and the commit) is listed once (sql/recent-events.ts).
 */
import type { StoredEvent } from '../domain/event';
import { PROPERTY_NAMES_WINDOW_DAYS, type EventNameCount, type PropertyNameCount, type RecentEvents, type RecentFilter } from '../ports';
import { InProcessDuckDb, type LocalDuckDb } from './duckdb-local';
import { hasRows, streamViews } from './duckdb-stream-views';
import { listRecentEvents, renderEventNames, renderPropertyNames, rowToEventNameCount, rowToPropertyNameCount } from './sql/recent-events';

const VIEW = 'events';

export interface RecentEventsOptions {
  /** The window: events received within this many days are listed (DEDUPE_WINDOW_DAYS). */
  windowDays: number;
}

export class DuckDbRecentEvents implements RecentEvents {
  constructor(
    private readonly dataDir: string,
    private readonly options: RecentEventsOptions = { windowDays: 30 },
    private readonly duckdb: LocalDuckDb = new InProcessDuckDb(),
  ) {}

  async recent(projectId: string, filter: RecentFilter, nowMs: number): Promise<StoredEvent[]> {
    const views = await streamViews(this.dataDir, 'events', { projectId });
    if (!hasRows(views)) return [];
    const receivedFrom = new Date(nowMs - this.options.windowDays * 86_400_000).toISOString();
    return this.duckdb.use(views, (session) => listRecentEvents((sql) => session.rows(sql), { table: VIEW, projectId, filter, receivedFrom }));
  }

  async names(projectId: string, limit: number, nowMs: number): Promise<EventNameCount[]> {
    const views = await streamViews(this.dataDir, 'events', { projectId });
    if (!hasRows(views)) return [];
    const receivedFrom = new Date(nowMs - this.options.windowDays * 86_400_000).toISOString();
    const sql = renderEventNames({ table: VIEW, projectId, receivedFrom, limit });
    return this.duckdb.use(views, async (session) => (await session.rows(sql)).map(rowToEventNameCount));
  }

  async propertyNames(projectId: string, limit: number, nowMs: number): Promise<PropertyNameCount[]> {
    const views = await streamViews(this.dataDir, 'events', { projectId });
    if (!hasRows(views)) return [];
    const days = Math.min(this.options.windowDays, PROPERTY_NAMES_WINDOW_DAYS);
    const sql = renderPropertyNames({ table: VIEW, projectId, receivedFrom: new Date(nowMs - days * 86_400_000).toISOString(), limit });
    return this.duckdb.use(views, async (session) => (await session.rows(sql)).map(rowToPropertyNameCount));
  }

  close(): Promise<void> {
    return this.duckdb.close();
  }
}
