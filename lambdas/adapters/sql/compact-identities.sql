-- Compaction of the identity links (docs/decisions/columnar-events.md): as compact-events.sql, for
-- the identities stream. A link resent or delivered twice is the same row: each distinct row once.
SELECT DISTINCT
  {{> rules/identity-data-columns.sql}},
  project_id,
  dt
FROM (
  SELECT
    {{> rules/identity-data-columns.sql}},
    project_id,
    dt
  {{> rules/batch-curated-rows.sql}}
  UNION ALL
  SELECT
    {{> rules/identity-data-columns.sql}},
    project_id,
    substr("timestamp", 1, 10) AS dt
  {{> rules/batch-landing-rows.sql}}
) merged
ORDER BY project_id, dt, id, "timestamp"
