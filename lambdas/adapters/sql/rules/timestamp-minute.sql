-- An event's UTC minute, YYYY-MM-DDTHH:MM (docs/decisions/columnar-events.md, "timestamp_minute"): a
-- SELECT list item over a stored event. Stored timestamps have one fixed width
-- (YYYY-MM-DDTHH:MM:SS.sssZ, lambdas/domain/timestamp.ts toIso), so the minute is their first 16
-- characters. Compaction (compact-events.sql) and erasure (erase-events-rows.sql) write it into the
-- curated table as timestamp_minute; rules/range-events.sql computes it for the landing tail, whose
-- rows have no such column. Every time zone since 1972 is a whole number of minutes off UTC (tzdb),
-- so an event's minute is in the same local hour and day as the event: what a trend buckets by.
substr("timestamp", 1, 16) AS timestamp_minute
