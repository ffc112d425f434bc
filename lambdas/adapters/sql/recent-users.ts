/**
 * The recent-users listing's query, one text for both engines (DuckDB locally, Athena on AWS): the
 * project's events received within the window, grouped by canonical user ID, the most recently seen
 * first, with up to RECENT_USER_IDS_SHOWN of the IDs each was sent with. Values are quoted literals
 * (quoteLiteral). Every function used exists under the same name and meaning in Trino and DuckDB:
 * count(DISTINCT), max, sum, strpos, translate, coalesce, row_number() OVER, and json_extract_scalar (DuckDB
 * runs with the Trino-compat macro, TRINO_COMPAT_MACROS in duckdb-results-query.ts).
 *
 * Each event counts once, however many copies of it the raw stream holds: the copy-rank rule
 * (rules/copy-rank.sql, as every reader of the events applies it) keeps the copy received first. The
 * search keeps a user when any of its IDs contains the text, or an `$identify` of it within the window
 * sent an email or name containing it, ignoring case as case-fold.ts folds it on both engines alike
 * (strpos, not LIKE: no wildcard in the text means anything). docs/decisions/people-search.md says why the raw events and not the identity store.
 */
import type { RecentUser, RecentUsersFilter } from '../../ports';
import { SQL_RULES } from './include';
import { caseFold } from './case-fold';
import { quoteLiteral, renderSql } from './render';

/** The copy-rank rule on one line: `row_number() OVER (...) AS copy_rank`. */
const COPY_RANK = renderSql(SQL_RULES['rules/copy-rank.sql']!, {}, {}).trim().replace(/\n\s*/g, ' ');

/** IDs listed per user; id_count says how many there are. */
export const RECENT_USER_IDS_SHOWN = 5;

export interface RecentUsersQuery {
  /** The events table (a Glue table on AWS, a temp view locally). */
  table: string;
  projectId: string;
  filter: RecentUsersFilter;
  /** Events received at or after this instant (ISO 8601 UTC): the window. */
  receivedFrom: string;
  /** Only partitions dt >= this day (YYYY-MM-DD): Athena reads the latest partitions only. */
  fromDt?: string;
}

export function renderRecentUsers(q: RecentUsersQuery): string {
  if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(q.table)) throw new Error(`Not a table name: ${q.table}`);
  if (!Number.isInteger(q.filter.limit) || q.filter.limit < 1) throw new Error('limit must be a positive integer');
  const where = [`project_id = ${quoteLiteral(q.projectId)}`, `received_at >= ${quoteLiteral(q.receivedFrom)}`, 'user_id IS NOT NULL'];
  if (q.fromDt !== undefined) where.push(`dt >= ${quoteLiteral(q.fromDt)}`);
  const search = q.filter.search === undefined ? undefined : caseFold(quoteLiteral(q.filter.search));
  const matched = search ? `CASE WHEN ${searchMatch(search)} THEN 1 ELSE 0 END` : '1';
  const conditions = search ? ['max(matched) = 1'] : [];
  // The next page: users after the last one shown, in the listing's order (ISO 8601 UTC text sorts as time).
  const after = q.filter.after;
  if (after) {
    const seen = quoteLiteral(after.last_seen);
    conditions.push(`(max(last_seen) < ${seen} OR (max(last_seen) = ${seen} AND user_id > ${quoteLiteral(after.user_id)}))`);
  }
  const having = conditions.length ? `\n  HAVING ${conditions.join(' AND ')}` : '';
  return `WITH copies AS (
  SELECT user_id, sent_user_id, "timestamp", ${matched} AS matched, ${COPY_RANK}
  FROM ${q.table}
  WHERE ${where.join('\n    AND ')}
),
per_id AS (
  SELECT user_id, sent_user_id, count(*) AS events, max("timestamp") AS last_seen, max(matched) AS matched
  FROM copies
  WHERE copy_rank = 1
  GROUP BY user_id, sent_user_id
),
users AS (
  SELECT user_id, sum(events) AS events, max(last_seen) AS last_seen, count(*) AS id_count
  FROM per_id
  GROUP BY user_id${having}
  ORDER BY last_seen DESC, user_id
  LIMIT ${q.filter.limit}
),
ranked AS (
  SELECT user_id, sent_user_id, row_number() OVER (PARTITION BY user_id ORDER BY last_seen DESC, sent_user_id) AS id_rank
  FROM per_id
)
SELECT u.user_id, u.events, u.last_seen, u.id_count, r.sent_user_id, r.id_rank
FROM users u
JOIN ranked r ON r.user_id = u.user_id AND r.id_rank <= ${RECENT_USER_IDS_SHOWN}
ORDER BY u.last_seen DESC, u.user_id, r.id_rank`;
}

/** The profile fields an `$identify` sends (domain/identity.ts reads the same two properties). */
const PROFILE_PATHS = ['$.email', '$.name'];

/**
 * An event (any copy) matches the search when its user ID or sent ID contains the lowered text, or it
 * is an `$identify` whose email or name property contains it: the raw event is what the identity store
 * took the profile from, so email and name are found without a second store.
 */
function searchMatch(search: string): string {
  const contains = (expr: string) => `strpos(${caseFold(`coalesce(${expr}, '')`)}, ${search}) > 0`;
  const profile = PROFILE_PATHS.map((path) => contains(`json_extract_scalar(properties, '${path}')`)).join(' OR ');
  return `${contains('user_id')} OR ${contains('sent_user_id')} OR (name = '$identify' AND (${profile}))`;
}

/** The query's rows (one per user and listed ID, in order; numbers as numbers, bigints or text) as users. */
export function rowsToRecentUsers(rows: Array<Record<string, unknown>>): RecentUser[] {
  const users: RecentUser[] = [];
  for (const row of rows) {
    const userId = String(row.user_id);
    let user = users.at(-1);
    if (user?.user_id !== userId) {
      user = { user_id: userId, ids: [], id_count: Number(row.id_count), events: Number(row.events), last_seen: String(row.last_seen) };
      users.push(user);
    }
    if (row.sent_user_id !== null && row.sent_user_id !== undefined) user.ids.push(String(row.sent_user_id));
  }
  return users;
}
