-- Planning baseline (issue 22, "Planning"; docs/api.md "Plan an experiment"): what the project's own
-- recent events say about one event, as the sample-size calculator needs it. One row:
--   users              active users: canonical users with at least one event in the look-back
--   converted          of them, users who sent :event at least once in it (the conversion baseline)
--   value_sum          the sum over active users of each user's value (below)
--   value_sum_squares  the sum over active users of the square of each user's value
--   first_seen         the earliest event of the look-back (how many days the project has data for)
-- A user's value: the number of :event events (count), or the sum of their numeric :property_path
-- (sum); users without the event count 0, so mean and variance are per ACTIVE user, the unit an
-- experiment enrolls. :property_path '$' (the whole object, never a number) means "count the events".
--
-- ONE SOURCE FOR BOTH ENGINES, like results-count.sql: the Trino dialect of Athena engine 3, which
-- DuckDB runs with the Trino-compat macros (json_extract_scalar, regexp_like;
-- lambdas/adapters/duckdb-results-query.ts). Timestamps compare as text (one fixed form, UTC).
-- The rules it shares with the results: identity resolution (rules/canonical-ids.sql: events count
-- under the CURRENT canonical ID of the ID they were sent with) and each event once (the events view,
-- events-view.sql), and a metric's value of an event (rules/metric-value.sql: a sum's property
-- counts when it is a JSON number or a string holding one in the JSON number form, else 0).
--
-- Parameters: :project_id; :from_ts, :to_ts (the look-back, ISO 8601 UTC, inclusive) and :from_dt,
-- :to_dt (their UTC days: the only event partitions read); :identities_from_dt (the day before the
-- project's creation, as results-count.sql explains); :event; :property_path.
WITH
{{> rules/canonical-ids.sql}},
-- The look-back's events (the only scan of {{events}}), each once, with their value for the metric
-- (rules/metric-value.sql, as the results read it: 1 per event without a property, the numeric
-- property's value for a sum; property_path NULL when :property_path is '$').
window_events AS (
  SELECT
    sent_user_id,
    name,
    "timestamp",
    {{> rules/metric-value.sql}}
  FROM (
    SELECT
      sent_user_id,
      name,
      properties,
      "timestamp",
      :event AS metric_event,
      CASE WHEN :property_path = '$' THEN NULL ELSE :property_path END AS property_path
    FROM {{events}}
    WHERE project_id = :project_id
      AND dt BETWEEN :from_dt AND :to_dt
      AND "timestamp" BETWEEN :from_ts AND :to_ts
      AND sent_user_id IS NOT NULL
  ) look_back
),
-- One row per active canonical user: whether it sent the event, and its value.
per_user AS (
  SELECT
    coalesce(c.canonical_id, w.sent_user_id) AS user_key,
    max(CASE WHEN w.name = :event THEN 1 ELSE 0 END) AS converted,
    sum(
      CASE WHEN w.name = :event THEN w.metric_value ELSE 0e0 END
    ) AS user_value,
    min(w."timestamp") AS first_seen
  FROM window_events w
  LEFT JOIN canonical c ON c.id = w.sent_user_id
  GROUP BY coalesce(c.canonical_id, w.sent_user_id)
)
SELECT
  count(*) AS users,
  coalesce(sum(converted), 0) AS converted,
  coalesce(sum(user_value), 0e0) AS value_sum,
  coalesce(sum(user_value * user_value), 0e0) AS value_sum_squares,
  min(first_seen) AS first_seen
FROM per_user
