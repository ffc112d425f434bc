-- rules/event-properties.sql for an insight that uses no property: the column is NULL, and no scan
-- reads it. Every expression over properties then gives NULL, as it would for an event without them.
CAST(NULL AS varchar) AS properties
