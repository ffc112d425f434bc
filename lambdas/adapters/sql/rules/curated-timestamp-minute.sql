-- The curated events' timestamp_minute column (rules/timestamp-minute.sql) as rules/range-events.sql
-- reads it from the curated part: a SELECT list item. An insight that reads every event's timestamp
-- anyway (funnels and retention order events by it) renders rules/timestamp-minute.sql in its place
-- (sql/insight-text.ts), computing the minute from the timestamp, so its scan does not read this
-- column as well; a trend reads this column and never the timestamp.
timestamp_minute
