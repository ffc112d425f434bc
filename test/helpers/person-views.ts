/** A person's rows in each analyst view (views.sql read by DuckDB, as an analyst would): what a deletion must leave at 0. */
import type { TestDuckDb } from './duckdb';

export const inList = (ids: readonly string[]) => ids.map((id) => `'${id}'`).join(', ');

/** Rows naming any of `ids` (an event by user_id or sent_user_id, a link by id or canonical_id), of one project or all. */
export async function personViewRows(duck: TestDuckDb, views: string, ids: readonly string[], projectId?: string) {
  const one = async (sql: string) => Number((await duck.rows(sql, views))[0]!.n);
  const project = projectId === undefined ? '' : `project_id = '${projectId}' AND `;
  const events = `${project}(user_id IN (${inList(ids)}) OR sent_user_id IN (${inList(ids)}))`;
  const links = `${project}(id IN (${inList(ids)}) OR canonical_id IN (${inList(ids)}))`;
  return {
    events: await one(`SELECT count(*) AS n FROM events WHERE ${events}`),
    unique_events: await one(`SELECT count(*) AS n FROM unique_events WHERE ${events}`),
    landing_events: await one(`SELECT count(*) AS n FROM landing_events WHERE ${events}`),
    curated_events: await one(`SELECT count(*) AS n FROM curated_events WHERE ${events}`),
    identities: await one(`SELECT count(*) AS n FROM identities WHERE ${links}`),
    curated_identities: await one(`SELECT count(*) AS n FROM curated_identities WHERE ${links}`),
  };
}
