/**
 * The recent-users listing locally: DuckDB in-process over the NDJSON files of the project, as the
 * recent-events listing reads them (duckdb-recent-events.ts; every day of the project, the window by
 * receipt).
 */
import { join } from 'node:path';
import type { RecentUser, RecentUsers, RecentUsersFilter } from '../ports';
import { InProcessDuckDb, type LocalDuckDb } from './duckdb-local';
import { EVENT_COLUMNS, partitionFiles } from './duckdb-results-query';
import { renderRecentUsers, rowsToRecentUsers } from './sql/recent-users';

const VIEW = 'tally_recent_users';

export class DuckDbRecentUsers implements RecentUsers {
  constructor(
    private readonly dataDir: string,
    private readonly options: { windowDays: number } = { windowDays: 30 },
    private readonly duckdb: LocalDuckDb = new InProcessDuckDb(),
  ) {}

  async recent(projectId: string, filter: RecentUsersFilter, nowMs: number): Promise<RecentUser[]> {
    const files = await partitionFiles(join(this.dataDir, 'events'), projectId);
    if (files.length === 0) return [];
    const sql = renderRecentUsers({ table: VIEW, projectId, filter, receivedFrom: new Date(nowMs - this.options.windowDays * 86_400_000).toISOString() });
    return this.duckdb.use([{ name: VIEW, files, columns: EVENT_COLUMNS }], async (session) => rowsToRecentUsers(await session.rows(sql)));
  }

  close(): Promise<void> {
    return this.duckdb.close();
  }
}
