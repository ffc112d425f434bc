-- The columns the counting rules read from a raw event: a SELECT list over {{events}} (StoredEvent,
-- all columns strings, properties the event's JSON object as text). Included (`{{> rules/event-columns.sql}}`)
-- by results-count.sql and results-summary.sql in the subquery that reads the events; the query
-- around it adds the FROM and its own filters. Gives sent_user_id, name, event_time, sort_key and
-- dedupe_key, properties, platform, country and app_version, the three values rules/enrollment-variant.sql decides from: exposure_experiment, exposure_variant
-- and super_variant. Needs :super_property_path, :sdk_super_property_path and
-- :name_super_property_path (render.ts resultsCountParams).
-- Every event counts once: the events view holds each event once (events-view.sql); a query over the
-- landing events by arrival (results-summary.sql) adds rules/copy-rank.sql after this list and keeps
-- `WHERE copy_rank = 1` (test/unit/sql-include.test.ts checks it does).
sent_user_id,
name,
-- The event's identity (copies share it) and its properties: what a metric reads (rules/metric-value.sql).
dedupe_key,
properties,
-- The event's context fields a breakdown splits users by (docs/decisions/breakdowns.md).
platform,
country,
app_version,
"timestamp" AS event_time,
-- Total order for ties at one timestamp: timestamp, then received_at, then dedupe_key.
-- timestamp and received_at have a fixed width, so text order of the concatenation is the
-- order of the tuple.
concat("timestamp", coalesce(received_at, ''), coalesce(dedupe_key, '')) AS sort_key,
-- An $experiment_exposure's experiment name and variant.
json_extract_scalar(properties, '$["$experiment_name"]') AS exposure_experiment,
json_extract_scalar(properties, '$["$variant"]') AS exposure_variant,
-- The super property $experiment_<name>, in any of the three spellings of the name.
-- The first spelling present wins; the paths may repeat one another (short names).
coalesce(
  json_extract_scalar(properties, :super_property_path),
  json_extract_scalar(properties, :sdk_super_property_path),
  json_extract_scalar(properties, :name_super_property_path)
) AS super_variant
