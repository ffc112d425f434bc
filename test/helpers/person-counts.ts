/** What an analyst's DuckDB finds of some IDs over the local data directory's views (views.sql): the person tests' yardstick. */
import { readFileSync } from 'node:fs';
import type { TestDuckDb } from './duckdb';
import type { TestStack } from './local';
import { personViewRows } from './person-views';

export { inList } from './person-views';

/** A person's rows in each analyst view of a running stack's data directory (every project's). */
export async function analystCounts(stack: Pick<TestStack, 'analystViews'>, duck: TestDuckDb, ids: string[]) {
  return personViewRows(duck, readFileSync(stack.analystViews, 'utf8'), ids);
}
