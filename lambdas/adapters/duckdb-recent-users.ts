/**
 * The recent-users listing locally: DuckDB over the project's events view (duckdb-stream-views.ts), as the
 * recent-events listing reads it (duckdb-recent-events.ts; every day of the project, the window by
 * receipt).
 */
import type { RecentUser, RecentUsers, RecentUsersFilter } from '../ports';
import { InProcessDuckDb, type LocalDuckDb } from './duckdb-local';
import { hasRows, streamViews } from './duckdb-stream-views';
import { renderRecentUsers, rowsToRecentUsers } from './sql/recent-users';

const VIEW = 'events';

export class DuckDbRecentUsers implements RecentUsers {
  constructor(
    private readonly dataDir: string,
    private readonly options: { windowDays: number } = { windowDays: 30 },
    private readonly duckdb: LocalDuckDb = new InProcessDuckDb(),
  ) {}

  async recent(projectId: string, filter: RecentUsersFilter, nowMs: number): Promise<RecentUser[]> {
    const views = await streamViews(this.dataDir, 'events', { projectId });
    if (!hasRows(views)) return [];
    const sql = renderRecentUsers({ table: VIEW, projectId, filter, receivedFrom: new Date(nowMs - this.options.windowDays * 86_400_000).toISOString() });
    return this.duckdb.use(views, async (session) => rowsToRecentUsers(await session.rows(sql)));
  }

  close(): Promise<void> {
    return this.duckdb.close();
  }
}
