-- The current rows of a compaction batch's curated partitions (compact-events.sql, compact-identities.sql):
-- the FROM and WHERE of a SELECT over {{curated}}. :partitions holds each partition as its day then its
-- project ID (domain/partition-batches.ts partitionKey: the day is always 10 characters, so the pair is
-- unambiguous); :project_ids and :dts are the same partitions' projects and days, which reach the scan
-- as partition filters.
FROM {{curated}}
WHERE project_id IN (:project_ids)
  AND dt IN (:dts)
  AND dt || project_id IN (:partitions)
