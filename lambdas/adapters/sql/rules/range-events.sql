-- The events an insight reads (docs/decisions/insights.md, "An insight kind"): the project's events
-- named in :events, on the local days :from_day to :to_day in the project's time zone :time_zone,
-- received by :data_through (the watermark), each once: the rows of the events view (events-view.sql,
-- each event once, the copy the results count), read as its two parts, {{curated_events}} (the
-- curated Parquet) and {{events_tail}} (the landing hours not yet compacted, events-tail-view.sql).
-- The watermark filter is the tail's only: every curated event was received before its landing hour
-- closed, and compaction takes an hour only after the watermark has passed its end (the arrival
-- allowance is shorter than the wait before an hour is compacted: docs/decisions/columnar-events.md),
-- so a curated row always passes it, and the curated scan never reads received_at. The project, day
-- and name filters, on the union, reach both scans (both engines push a filter into each branch of a
-- UNION ALL, as through the events view itself): Athena reads only those partitions, and of the columns below
-- only those the insight uses (Parquet). The columns are all an insight may use; an insight that uses
-- no property renders rules/event-properties.sql as rules/event-properties-unused.sql, so no scan
-- reads properties (insight-kinds.ts).
--
-- Time zone (docs/decisions/project-time-zone.md): partitions are UTC days (dt), and a local day can
-- span two of them (UTC-10 ends on the next UTC day, UTC+14 starts on the day before), so the scan
-- reads the UTC days :scan_from_dt to :scan_to_dt that cover the local range, and the local day of
-- each event keeps exactly the range. The local day and hour are those of the event's UTC minute
-- (rules/timestamp-minute.sql: the curated table's timestamp_minute column, computed for the tail):
-- every time zone since 1972 is a whole number of minutes off UTC (tzdb), so the minute's local hour
-- and day are the event's, and an insight that buckets by them only (a trend) reads the minute, 0.4
-- bytes an event in Parquet, never the timestamp, 3 bytes (docs/decisions/columnar-events.md,
-- "timestamp_minute"); "timestamp" is read only by the insights that order events (funnels,
-- retention). The same text on both engines: from_iso8601_timestamp gives a
-- timestamp with time zone (DuckDB: the Trino-compat macro), AT TIME ZONE moves it into the zone, and
-- the CAST to timestamp keeps its wall-clock time (Trino drops the zone; DuckDB's AT TIME ZONE already
-- gives the wall-clock time). Columns added:
--   day       the local day (YYYY-MM-DD)
--   hour_at   the UTC instant (a timestamp without zone) the event's local hour starts: a local hour
--             is one bucket even where the zone is not a whole hour off UTC (Asia/Kolkata), and the
--             two 01:00 hours of a daylight-saving change stay two.
SELECT
  sent_user_id,
  name,
  properties,
  "timestamp",
  CAST(CAST(local_at AS date) AS varchar) AS day,
  utc_at - (local_at - date_trunc('hour', local_at)) AS hour_at,
  platform,
  country,
  app_version
FROM (
  SELECT
    sent_user_id,
    name,
    properties,
    "timestamp",
    CAST(from_iso8601_timestamp(concat(timestamp_minute, ':00Z')) AT TIME ZONE :time_zone AS timestamp) AS local_at,
    CAST(from_iso8601_timestamp(concat(timestamp_minute, ':00Z')) AT TIME ZONE 'UTC' AS timestamp) AS utc_at,
    platform,
    country,
    app_version
  FROM (
    SELECT
      {{> rules/range-event-columns.sql}},
      {{> rules/curated-timestamp-minute.sql}}
    FROM {{curated_events}}
    UNION ALL
    SELECT
      {{> rules/range-event-columns.sql}},
      {{> rules/timestamp-minute.sql}}
    FROM {{events_tail}}
    WHERE received_at <= :data_through
  ) view_rows
  WHERE project_id = :project_id
    AND dt BETWEEN :scan_from_dt AND :scan_to_dt
    AND name IN (:events)
) range_rows
WHERE CAST(local_at AS date) BETWEEN CAST(:from_day AS date) AND CAST(:to_day AS date)
