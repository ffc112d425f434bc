-- The columns rules/range-events.sql reads from each part of the events view (curated_events,
-- events_tail): a SELECT list. properties through rules/event-properties.sql, which an insight that
-- uses no property renders as NULL (sql/insight-text.ts).
sent_user_id,
name,
{{> rules/event-properties.sql}},
"timestamp",
platform,
country,
app_version,
project_id,
dt
