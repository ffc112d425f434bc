-- Planning baseline (issue 22, "Planning"; docs/api.md "Plan an experiment"): what the project's own
-- recent events say about one event, as the sample-size calculator needs it. One row:
--   users              active users: canonical users with at least one event in the look-back
--   converted          of them, users who sent :event at least once in it (the conversion baseline)
--   value_sum          the sum over active users of each user's value (below)
--   value_sum_squares  the sum over active users of the square of each user's value
--   first_seen         the earliest event of the look-back (how many days the project has data for)
--   covariate_*        CUPED's expected variance reduction (domain/expected-variance-reduction.ts;
--                      docs/decisions/cuped.md): each active user's value over the :covariate_from_ts
--                      window before the look-back (the pseudo-exposure point :from_ts) is the covariate x
--                      of their value y in the look-back; users without events there keep x = 0, as the
--                      results do. For conversion (x, y 0/1, so x² = x): covariate_converted (Σx) and
--                      covariate_converted_products (Σxy); for count and sum: covariate_value_sum (Σx),
--                      covariate_value_sum_squares (Σx²) and covariate_value_sum_products (Σxy).
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
-- Parameters: :project_id; :from_ts, :to_ts (the look-back, ISO 8601 UTC, inclusive) and :to_dt (the
-- UTC day of :to_ts); :covariate_from_ts, :covariate_from_dt (the look-back's start minus CUPED's
-- window of cuped_lookback_days, and its UTC day: the only event partitions read are :covariate_from_dt
-- to :to_dt; without CUPED they are :from_ts and its day, and nothing before the look-back is read); :identities_from_dt (the day before the project's creation, as results-count.sql explains);
-- :event; :property_path.
WITH
{{> rules/canonical-ids.sql}},
-- The look-back's events and CUPED's window before it (the only scan of {{events}}), each once, with
-- their value for the metric (rules/metric-value.sql, as the results read it: 1 per event without a
-- property, the numeric property's value for a sum; property_path NULL when :property_path is '$').
window_events AS (
  SELECT
    sent_user_id,
    name,
    "timestamp",
    "timestamp" >= :from_ts AS in_window,
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
      AND dt BETWEEN :covariate_from_dt AND :to_dt
      AND "timestamp" BETWEEN :covariate_from_ts AND :to_ts
      AND sent_user_id IS NOT NULL
  ) look_back
),
-- One row per canonical user with an event in either window: whether it sent the event, and its
-- value, in the look-back (y) and in the window before it (x, CUPED's covariate).
per_user AS (
  SELECT
    coalesce(c.canonical_id, w.sent_user_id) AS user_key,
    max(CASE WHEN w.in_window THEN 1 ELSE 0 END) AS active,
    max(CASE WHEN w.in_window AND w.name = :event THEN 1 ELSE 0 END) AS converted,
    sum(
      CASE WHEN w.in_window AND w.name = :event THEN w.metric_value ELSE 0e0 END
    ) AS user_value,
    max(CASE WHEN NOT w.in_window AND w.name = :event THEN 1 ELSE 0 END) AS covariate_converted,
    sum(
      CASE WHEN NOT w.in_window AND w.name = :event THEN w.metric_value ELSE 0e0 END
    ) AS covariate_value,
    min(CASE WHEN w.in_window THEN w."timestamp" END) AS first_seen
  FROM window_events w
  LEFT JOIN canonical c ON c.id = w.sent_user_id
  GROUP BY coalesce(c.canonical_id, w.sent_user_id)
)
-- Over active users only (an event in the look-back), the unit an experiment enrolls.
SELECT
  count(*) AS users,
  coalesce(sum(converted), 0) AS converted,
  coalesce(sum(user_value), 0e0) AS value_sum,
  coalesce(sum(user_value * user_value), 0e0) AS value_sum_squares,
  min(first_seen) AS first_seen,
  coalesce(sum(covariate_converted), 0) AS covariate_converted,
  coalesce(sum(covariate_converted * converted), 0) AS covariate_converted_products,
  coalesce(sum(covariate_value), 0e0) AS covariate_value_sum,
  coalesce(sum(covariate_value * covariate_value), 0e0) AS covariate_value_sum_squares,
  coalesce(sum(covariate_value * user_value), 0e0) AS covariate_value_sum_products
FROM per_user
WHERE active = 1
