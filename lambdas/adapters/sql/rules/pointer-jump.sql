-- One round of pointer jumping (rules/canonical-ids.sql, which includes it three times): every ID of
-- `previous` (id, canonical_id: its pointer) gets its target's pointer instead, when the target has one.
-- Each pointer is put twice in the same partitioning: under the ID itself (its own pointer, upward) and
-- under its target (a member pointing at it, downward); the window gives each member its target's
-- pointer. Reads `previous` once.
SELECT id, coalesce(target_pointer, canonical_id) AS canonical_id
FROM (
  SELECT
    p.id,
    p.canonical_id,
    r.upward,
    max(CASE WHEN r.upward THEN p.canonical_id END) OVER (PARTITION BY CASE WHEN r.upward THEN p.id ELSE p.canonical_id END) AS target_pointer
  FROM previous p
  CROSS JOIN UNNEST(ARRAY[true, false]) AS r (upward)
) by_node
WHERE NOT upward
