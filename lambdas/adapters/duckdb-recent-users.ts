/**
 * The recent-users listing locally: DuckDB in-process over the NDJSON files of the project, as the
 * recent-events listing reads them (duckdb-recent-events.ts; every day of the project, the window by
 * receipt).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';
import type { RecentUser, RecentUsers, RecentUsersFilter } from '../ports';
import { EVENT_COLUMNS, TRINO_COMPAT_MACROS, partitionFiles, readRows, viewSql } from './duckdb-results-query';
import { renderRecentUsers, rowsToRecentUsers } from './sql/recent-users';

const VIEW = 'tally_recent_users';

export class DuckDbRecentUsers implements RecentUsers {
  private instance: Promise<DuckDBInstance> | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly options: { windowDays: number } = { windowDays: 30 },
  ) {}

  async recent(projectId: string, filter: RecentUsersFilter, nowMs: number): Promise<RecentUser[]> {
    const files = await partitionFiles(join(this.dataDir, 'events'), projectId);
    if (files.length === 0) return [];
    const sql = renderRecentUsers({ table: VIEW, projectId, filter, receivedFrom: new Date(nowMs - this.options.windowDays * 86_400_000).toISOString() });
    this.instance ??= DuckDBInstance.create(':memory:');
    const connection = await (await this.instance).connect();
    try {
      await connection.run(viewSql(VIEW, files, EVENT_COLUMNS));
      for (const macro of TRINO_COMPAT_MACROS) await connection.run(macro);
      return rowsToRecentUsers(await readRows(connection, sql));
    } finally {
      connection.closeSync();
    }
  }

  async close(): Promise<void> {
    const instance = this.instance;
    this.instance = undefined;
    if (instance) (await instance).closeSync();
  }
}
