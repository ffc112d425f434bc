/** What an analyst's DuckDB finds of some IDs over the local data directory's views (views.sql): the person tests' yardstick. */
import { readFileSync } from 'node:fs';
import type { TestDuckDb } from './duckdb';
import type { TestStack } from './local';

/** IDs as an SQL list of literals (test IDs hold no quote). */
export const inList = (ids: string[]) => ids.map((id) => `'${id}'`).join(', ');

export async function analystCounts(stack: Pick<TestStack, 'analystViews'>, duck: TestDuckDb, ids: string[]) {
  const setup = readFileSync(stack.analystViews, 'utf8');
  const one = async (sql: string) => Number((await duck.rows(sql, setup))[0]!.n);
  const events = `(user_id IN (${inList(ids)}) OR sent_user_id IN (${inList(ids)}))`;
  const links = `(id IN (${inList(ids)}) OR canonical_id IN (${inList(ids)}))`;
  return {
    events: await one(`SELECT count(*) AS n FROM events WHERE ${events}`),
    unique_events: await one(`SELECT count(*) AS n FROM unique_events WHERE ${events}`),
    landing_events: await one(`SELECT count(*) AS n FROM landing_events WHERE ${events}`),
    curated_events: await one(`SELECT count(*) AS n FROM curated_events WHERE ${events}`),
    identities: await one(`SELECT count(*) AS n FROM identities WHERE ${links}`),
  };
}
