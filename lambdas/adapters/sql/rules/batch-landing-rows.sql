-- The landing rows of a compaction batch (compact-events.sql, compact-identities.sql): the FROM and
-- WHERE of a SELECT over {{landing}}, the hours :hours, the rows whose partition (the day of their
-- timestamp, then their project: rules/batch-curated-rows.sql) is one of the batch's :partitions.
FROM {{landing}}
WHERE arrival_hour IN (:hours)
  AND project_id IN (:project_ids)
  AND substr("timestamp", 1, 10) || project_id IN (:partitions)
