-- Identity resolution: the CURRENT canonical ID of every linked ID (spec "Identity resolution";
-- docs/identity-and-experiments.md). Included (`{{> rules/canonical-ids.sql}},` in a WITH list) by
-- results-count.sql and results-count-incremental.sql, so both resolve identities the same way.
-- Defines four CTEs: links (id, canonical_id: the latest pointer of each linked ID), hops2 and hops4
-- (the pointers moved 2 and 4 hops) and canonical (id, canonical_id: the root each linked ID resolves
-- to). An including query may name canonical once only: each use reads {{identities}} again. An ID in neither is its own root:
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
-- Follow the pointers to the root, at most 8 hops, by pointer jumping: three rounds, each moving every
-- linked ID's pointer to where its target points (when the target has a pointer), so the pointers
-- cover 2, then 4, then 8 hops: the ID at min(8, chain length) hops, as 8 self-joins of links would
-- find. Not joins: Trino inlines a WITH relation wherever it is used ("the SQL for the WITH clause will
-- be inlined anywhere the named relation is used", Trino's SELECT documentation), so 8 joins of links
-- read and bill {{identities}} 8 times; each round here reads the one before it once, and
-- {{identities}} is read once (test/unit/athena-sql-grammar.test.ts counts it). A round is
-- rules/pointer-jump.sql, over `previous`: the round before it.
-- Not WITH RECURSIVE: Athena caps recursion at depth 10 with no way to raise it and fails the query
-- beyond, and both engines evaluate it as repeated joins anyway. Chains are short in practice: edges
-- point to an earlier-seen ID (no cycles), a merge writes a record for every member it re-points
-- straight at the new root, and reading a longer chain in the table shortens it and records that too
-- (lambdas/store/identity-store.ts), so a chain grows by one hop only when a group's root is itself
-- merged later and the member's re-point was missed; 8 hops means 8 such merges in a row.
hops2 AS (
  WITH previous AS (SELECT id, canonical_id FROM links)
  {{> rules/pointer-jump.sql}}
),
hops4 AS (
  WITH previous AS (SELECT id, canonical_id FROM hops2)
  {{> rules/pointer-jump.sql}}
),
canonical AS (
  WITH previous AS (SELECT id, canonical_id FROM hops4)
  {{> rules/pointer-jump.sql}}
)
