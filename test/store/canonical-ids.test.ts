/**
 * Identity resolution (lambdas/adapters/sql/rules/canonical-ids.sql) run by DuckDB over generated
 * identity records: the pointer jumping that reads the identities table once finds, for every linked
 * ID, what 8 self-joins of the latest pointers found (the query before, kept here as the reference):
 * the ID at 8 hops, or the root of a shorter chain. Forests with chains of 1 to 12 hops, merges that
 * re-point members, self-pointing records (an ID made a root again), records of other projects and of
 * days before the range.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { prng } from '../../bin/prng';
import { expandIncludes } from '../../lambdas/adapters/sql/include';
import { quoteLiteral, renderSql } from '../../lambdas/adapters/sql/render';

const RULE = expandIncludes(['WITH', '{{> rules/canonical-ids.sql}}', 'SELECT id, canonical_id FROM canonical'].join('\n'));

/** The formulation before: the latest pointers (as the rule's links), then 8 self-joins. */
const EIGHT_JOINS = `
WITH links AS (
  SELECT id, canonical_id FROM (
    SELECT id, canonical_id, row_number() OVER (
      PARTITION BY id ORDER BY coalesce(try_cast("version" AS bigint), 0) DESC, "timestamp" DESC, canonical_id DESC) AS rn
    FROM {{identities}} WHERE project_id = :project_id AND dt >= :identities_from_dt
  ) latest WHERE rn = 1 AND id <> canonical_id
)
SELECT h1.id, coalesce(h8.canonical_id, h7.canonical_id, h6.canonical_id, h5.canonical_id, h4.canonical_id, h3.canonical_id, h2.canonical_id, h1.canonical_id) AS canonical_id
FROM links h1
LEFT JOIN links h2 ON h2.id = h1.canonical_id
LEFT JOIN links h3 ON h3.id = h2.canonical_id
LEFT JOIN links h4 ON h4.id = h3.canonical_id
LEFT JOIN links h5 ON h5.id = h4.canonical_id
LEFT JOIN links h6 ON h6.id = h5.canonical_id
LEFT JOIN links h7 ON h7.id = h6.canonical_id
LEFT JOIN links h8 ON h8.id = h7.canonical_id`;

interface Row {
  project_id: string;
  dt: string;
  id: string;
  canonical_id: string;
  version: string | null;
  timestamp: string;
}

/** Identity records of one generated forest: chains, merges re-pointing members, roots made roots again. */
function records(seed: number): Row[] {
  const random = prng(seed);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const rows: Row[] = [];
  let version = 0;
  const record = (id: string, canonical: string, project = 'p1', dt = '2026-03-02') =>
    rows.push({
      project_id: project,
      dt,
      id,
      canonical_id: canonical,
      version: random() < 0.1 ? null : String(++version),
      timestamp: `2026-03-02T00:00:${String(version % 60).padStart(2, '0')}.000Z`,
    });
  for (let chain = 0; chain < 40; chain++) {
    const length = 1 + Math.floor(random() * 12);
    const ids = Array.from({ length: length + 1 }, (_, i) => `c${chain}-${i}`);
    for (let i = 1; i <= length; i++) record(ids[i]!, ids[i - 1]!);
    // Members joining the chain's IDs, some re-pointed later straight at the root.
    for (let m = 0; m < 3; m++) {
      const member = `c${chain}-m${m}`;
      record(member, pick(ids));
      if (random() < 0.3) record(member, ids[0]!);
    }
    if (random() < 0.1) record(ids[1]!, ids[1]!);
  }
  // Another project's records and records before the range: never read.
  record('c0-1', 'elsewhere', 'p2');
  record('c1-1', 'too-early', 'p1', '2026-02-01');
  return rows;
}

async function resolve(connection: Awaited<ReturnType<DuckDBInstance['connect']>>, sql: string): Promise<Record<string, string>> {
  const text = renderSql(sql, { project_id: 'p1', identities_from_dt: '2026-03-01' }, { identities: 'identities' });
  const rows = (await connection.runAndReadAll(text)).getRowObjectsJson() as Array<{ id: string; canonical_id: string }>;
  return Object.fromEntries(rows.map((r) => [r.id, r.canonical_id]).sort(([a], [b]) => (a! < b! ? -1 : 1)));
}

describe('canonical IDs read from the identities table once', () => {
  it.each([1, 2, 3, 4, 5])('resolve every linked ID as 8 self-joins did (seed %i)', async (seed) => {
    const connection = await (await DuckDBInstance.create()).connect();
    const rows = records(seed);
    const values = rows
      .map(
        (r) =>
          `(${[r.project_id, r.dt, r.id, r.canonical_id].map(quoteLiteral).join(', ')}, ${r.version === null ? 'NULL' : quoteLiteral(r.version)}, ${quoteLiteral(r.timestamp)})`,
      )
      .join(',\n');
    await connection.run(`CREATE TABLE identities AS SELECT * FROM (VALUES ${values}) AS t (project_id, dt, id, canonical_id, "version", "timestamp")`);
    const expected = await resolve(connection, EIGHT_JOINS);
    const actual = await resolve(connection, RULE);
    // Chains longer than 8 hops are in the data: the cap is exercised.
    expect(rows.some((r) => /^c\d+-(9|1\d)$/.test(r.id))).toBe(true);
    expect(Object.keys(actual).length).toBeGreaterThan(100);
    expect(actual).toEqual(expected);
    connection.closeSync();
  });
});
