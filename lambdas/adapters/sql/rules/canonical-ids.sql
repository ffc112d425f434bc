-- Identity resolution: the CURRENT canonical ID of every linked ID (spec "Identity resolution";
-- docs/identity-and-experiments.md). Included (`{{> rules/canonical-ids.sql}},` in a WITH list) by
-- results-count.sql and results-count-incremental.sql, so both resolve identities the same way.
-- Defines two CTEs: links (id, canonical_id: the latest pointer of each linked ID) and canonical
-- (id, canonical_id: the root each linked ID resolves to). An ID in neither is its own root:
-- `coalesce(c.canonical_id, <the ID as sent>)` after a LEFT JOIN canonical c.
-- Needs :project_id, :identities_from_dt (see results-count.sql on partition pruning) and
-- {{identities}}.
--
-- The latest record of each linked ID (all of them, whatever their timestamp: this resolves the
-- CURRENT canonical ID, which is how events stored before a link join the user's later events).
-- Latest is by version: the identities table's pointer version the change committed, so the order
-- is the table's commit order, not the requests' arrival order (records without one count as 0).
-- A latest record pointing at itself makes the ID a root again, like an ID without records.
links AS (
  SELECT id, canonical_id
  FROM (
    SELECT
      id,
      canonical_id,
      row_number() OVER (
        PARTITION BY id ORDER BY coalesce(try_cast("version" AS bigint), 0) DESC, "timestamp" DESC, canonical_id DESC
      ) AS rn
    FROM {{identities}}
    WHERE project_id = :project_id
      AND dt >= :identities_from_dt
  ) latest
  WHERE rn = 1 AND id <> canonical_id
),
-- Follow the pointers to the root with a fixed number of self-joins, 8 hops. Not WITH RECURSIVE:
-- Athena caps recursion at depth 10 with no way to raise it and fails the query beyond, and both
-- engines evaluate it as repeated joins anyway. Chains are short in practice: edges point to an
-- earlier-seen ID (no cycles), a merge writes a record for every member it re-points straight at the
-- new root, and reading a longer chain in the table shortens it and records that too
-- (lambdas/store/identity-store.ts), so a chain grows by one hop only when a group's root is itself
-- merged later and the member's re-point was missed; 8 hops means 8 such merges in a row.
canonical AS (
  SELECT
    h1.id,
    coalesce(
      h8.canonical_id, h7.canonical_id, h6.canonical_id, h5.canonical_id,
      h4.canonical_id, h3.canonical_id, h2.canonical_id, h1.canonical_id
    ) AS canonical_id
  FROM links h1
  LEFT JOIN links h2 ON h2.id = h1.canonical_id
  LEFT JOIN links h3 ON h3.id = h2.canonical_id
  LEFT JOIN links h4 ON h4.id = h3.canonical_id
  LEFT JOIN links h5 ON h5.id = h4.canonical_id
  LEFT JOIN links h6 ON h6.id = h5.canonical_id
  LEFT JOIN links h7 ON h7.id = h6.canonical_id
  LEFT JOIN links h8 ON h8.id = h7.canonical_id
)
