/**
 * The recent-users listing on AWS: Athena over the raw events table's latest partitions, exactly as
 * the recent-events listing reads it (athena-recent-events.ts): dt from the start of the window on,
 * then received_at within it, so a listing scans the project's last windowDays days and nothing else.
 * Like that listing, an event shows here once Firehose has delivered it.
 */
import type { RecentUser, RecentUsers, RecentUsersFilter } from '../ports';
import type { AthenaResultsQuery } from './athena-results-query';
import { renderRecentUsers, rowsToRecentUsers } from './sql/recent-users';

export class AthenaRecentUsers implements RecentUsers {
  constructor(
    private readonly athena: Pick<AthenaResultsQuery, 'run' | 'eventsTable'>,
    private readonly options: { windowDays: number; maxWaitMs: number },
  ) {}

  /** The exact text recent() sends. */
  sql(projectId: string, filter: RecentUsersFilter, nowMs: number): string {
    const from = new Date(nowMs - this.options.windowDays * 86_400_000).toISOString();
    return renderRecentUsers({ table: this.athena.eventsTable, projectId, filter, receivedFrom: from, fromDt: from.slice(0, 10) });
  }

  async recent(projectId: string, filter: RecentUsersFilter, nowMs: number): Promise<RecentUser[]> {
    const { rows } = await this.athena.run(this.sql(projectId, filter, nowMs), Date.now() + this.options.maxWaitMs);
    return rowsToRecentUsers(rows);
  }
}
