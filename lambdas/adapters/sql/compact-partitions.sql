-- The curated partitions (project, day) that landing hours :hours of a stream touch
-- (docs/decisions/columnar-events.md, "Compaction"): what a compaction run rewrites, in batches of at
-- most 100 (lambdas/domain/partition-batches.ts). A line with no project or timestamp names no
-- partition and stays in landing only (nothing the ingest path writes lacks either).
SELECT DISTINCT
  project_id,
  substr("timestamp", 1, 10) AS dt
FROM {{landing}}
WHERE arrival_hour IN (:hours)
  AND project_id IS NOT NULL
  AND length(project_id) > 0
  AND length("timestamp") >= 10
ORDER BY project_id, dt
