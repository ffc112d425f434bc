-- The identities view (docs/data-model.md, "Tables"): every identity link once, from the curated
-- partitions plus the landing hours after :compacted_through, as events-view.sql does for events.
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
  UNION ALL
  SELECT
    {{> rules/identity-data-columns.sql}},
    project_id,
    substr("timestamp", 1, 10) AS dt
  FROM {{landing}}
  WHERE arrival_hour > :compacted_through
    AND project_id IS NOT NULL
    AND length(project_id) > 0
    AND length("timestamp") >= 10
) links
