-- The events an insight reads (docs/decisions/insights.md, "An insight kind"): the project's events
-- named in :events, on the days :scan_from_dt to :to_dt, received by :data_through (the watermark),
-- each once. Every filter here is one all copies of an event pass (project, day, name), or one that
-- keeps the first copy whenever it keeps any (received_at: the first copy is received first), so
-- copy_rank = 1 is the copy the results count (rules/copy-rank.sql). The project and day filters reach
-- the scan: Athena reads only those partitions. The columns are all an insight may use.
SELECT sent_user_id, name, properties, "timestamp", dt, platform, country, app_version
FROM (
  SELECT
    sent_user_id,
    name,
    properties,
    "timestamp",
    dt,
    platform,
    country,
    app_version,
    {{> rules/copy-rank.sql}}
  FROM {{events}}
  WHERE project_id = :project_id
    AND dt BETWEEN :scan_from_dt AND :to_dt
    AND name IN (:events)
    AND received_at <= :data_through
) copies
WHERE copy_rank = 1
