/**
 * The recent-events listing on AWS: Athena over the raw events table (tally.events, Firehose to S3),
 * reading only the latest partitions: dt (the event's day) from the start of the window on, then
 * received_at within the window. Partition projection prunes by project_id and dt, so a listing
 * scans the project's last windowDays days and nothing else; the top-N (ORDER BY ... LIMIT) finds
 * matching events however far back they are in those days.
 *
 * Delay: Firehose delivers to S3 when its buffer fills or its interval passes (lib/raw-streams.ts),
 * so an event appears here up to that interval (plus a few seconds of delivery) after it was
 * acknowledged. An event whose timestamp is older than the window (sent late) is not listed on AWS,
 * where its partition is not read; locally every partition is read. An event S3 holds more than once
 * (Firehose delivers at least once; a crash between the stream write and the commit) is listed once
 * (sql/recent-events.ts); numbering the copies adds no bytes scanned.
 */
import type { StoredEvent } from '../domain/event';
import { PROPERTY_NAMES_WINDOW_DAYS, type EventNameCount, type PropertyNameCount, type RecentEvents, type RecentFilter } from '../ports';
import type { AthenaResultsQuery } from './athena-results-query';
import {
  listRecentEvents,
  renderEventNames,
  renderPropertyNames,
  renderRecentEvents,
  rowToEventNameCount,
  rowToPropertyNameCount,
  type RecentEventsQuery,
} from './sql/recent-events';

export interface AthenaRecentEventsOptions {
  /** The window: events received within this many days (DEDUPE_WINDOW_DAYS). */
  windowDays: number;
  /** How long a listing may wait for Athena; the query is stopped after it. */
  maxWaitMs: number;
}

export class AthenaRecentEvents implements RecentEvents {
  constructor(
    private readonly athena: Pick<AthenaResultsQuery, 'run' | 'eventsTable'>,
    private readonly options: AthenaRecentEventsOptions,
  ) {}

  /** The exact text recent() sends first (over the newest candidates; see sql/recent-events.ts). */
  sql(projectId: string, filter: RecentFilter, nowMs: number, candidates?: number): string {
    return renderRecentEvents({ ...this.query(projectId, filter, nowMs), candidates });
  }

  async recent(projectId: string, filter: RecentFilter, nowMs: number): Promise<StoredEvent[]> {
    const deadline = Date.now() + this.options.maxWaitMs;
    return listRecentEvents(async (sql) => (await this.athena.run(sql, deadline)).rows, this.query(projectId, filter, nowMs));
  }

  /** The exact text names() sends. */
  namesSql(projectId: string, limit: number, nowMs: number): string {
    const { filter: _filter, ...window } = this.query(projectId, { limit }, nowMs);
    return renderEventNames({ ...window, limit });
  }

  async names(projectId: string, limit: number, nowMs: number): Promise<EventNameCount[]> {
    const deadline = Date.now() + this.options.maxWaitMs;
    return (await this.athena.run(this.namesSql(projectId, limit, nowMs), deadline)).rows.map(rowToEventNameCount);
  }

  /** The exact text propertyNames() sends: the latest PROPERTY_NAMES_WINDOW_DAYS of the window, its partitions only. */
  propertyNamesSql(projectId: string, limit: number, nowMs: number): string {
    const days = Math.min(this.options.windowDays, PROPERTY_NAMES_WINDOW_DAYS);
    const from = new Date(nowMs - days * 86_400_000).toISOString();
    return renderPropertyNames({ table: this.athena.eventsTable, projectId, receivedFrom: from, fromDt: from.slice(0, 10), limit });
  }

  async propertyNames(projectId: string, limit: number, nowMs: number): Promise<PropertyNameCount[]> {
    const deadline = Date.now() + this.options.maxWaitMs;
    return (await this.athena.run(this.propertyNamesSql(projectId, limit, nowMs), deadline)).rows.map(rowToPropertyNameCount);
  }

  private query(projectId: string, filter: RecentFilter, nowMs: number): Omit<RecentEventsQuery, 'candidates'> {
    const from = new Date(nowMs - this.options.windowDays * 86_400_000).toISOString();
    return { table: this.athena.eventsTable, projectId, filter, receivedFrom: from, fromDt: from.slice(0, 10) };
  }
}
