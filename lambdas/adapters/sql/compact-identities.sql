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
  FROM {{curated}}
  WHERE project_id IN (:project_ids)
    AND dt IN (:dts)
    AND dt || project_id IN (:partitions)
  UNION ALL
  SELECT
    {{> rules/identity-data-columns.sql}},
    project_id,
    substr("timestamp", 1, 10) AS dt
  FROM {{landing}}
  WHERE arrival_hour IN (:hours)
    AND project_id IN (:project_ids)
    AND substr("timestamp", 1, 10) || project_id IN (:partitions)
) merged
ORDER BY project_id, dt, id, "timestamp"
