-- Per-user metric values, capped (issue 22; docs/decisions/experiment-statistics.md, "Capping"): the
-- CTE user_values, the users CTE (one row per canonical user and metric slot, rules/metric-slots.sql)
-- with metric_user_value. Included by results-count.sql and results-count-incremental.sql before
-- rules/variant-rows.sql, which reads it.
--  - The per-user value: conversion 1 when the user has a counted event, else 0; count and sum the
--    total of the counted events' values (rules/metric-user-sums.sql), 0 without any.
--  - With a cap, LEAST(value, threshold), the threshold the exact continuous percentile (PERCENTILE_CONT)
--    of the per-user values of every enrolled user of every variant (zeros included: every enrolled
--    user has a row in every slot, its enrollment rows are in each): with the n values sorted and
--    h = (n - 1) * cap, v[floor(h) + 1] + (h - floor(h)) * (v[floor(h) + 2] - v[floor(h) + 1]),
--    1-based, from row_number() and count(*), which both engines compute exactly (no
--    approx_percentile: DuckDB and Athena, and the incremental count and the full one, must agree).
--    v[floor(h) + 2] is absent only when h is a whole number (the fraction is then 0): coalesce, as
--    LEAST with a NULL is NULL in Trino but not in DuckDB.
--  - CUPED's covariate (covariate_user_value): the same rule over the pre-exposure window's events
--    (covariate_events, covariate_total), capped at the same threshold (docs/decisions/cuped.md).
-- The windows partition capped slots by metric over enrolled users only; every other row is its
-- own user's partition (cap_solo), so the rows that need no percentile are not sorted as one.
user_values AS (
  SELECT
    user_key,
    metric,
    variant,
    enrolled_at,
    variants_seen,
    last_goal_at,
    converted_at,
    metric_min,
    platform,
    country,
    app_version,
    CASE
      WHEN metric_cap IS NULL THEN user_value
      ELSE LEAST(user_value, cap_low + (cap_h - floor(cap_h)) * (coalesce(cap_high, cap_low) - cap_low))
    END AS metric_user_value,
    CASE
      WHEN metric_cap IS NULL THEN covariate_value
      ELSE LEAST(covariate_value, cap_low + (cap_h - floor(cap_h)) * (coalesce(cap_high, cap_low) - cap_low))
    END AS covariate_user_value
  FROM (
    SELECT
      ranked.*,
      max(CASE WHEN cap_rank = floor(cap_h) + 1 THEN user_value END) OVER (PARTITION BY cap_group, cap_solo) AS cap_low,
      max(CASE WHEN cap_rank = floor(cap_h) + 2 THEN user_value END) OVER (PARTITION BY cap_group, cap_solo) AS cap_high
    FROM (
      SELECT
        valued.*,
        row_number() OVER (PARTITION BY cap_group, cap_solo ORDER BY user_value) AS cap_rank,
        CAST(count(*) OVER (PARTITION BY cap_group, cap_solo) - 1 AS double) * metric_cap AS cap_h
      FROM (
        SELECT
          users.*,
          CASE
            WHEN metric_kind = 'conversion' THEN CASE WHEN metric_events > 0 THEN 1e0 ELSE 0e0 END
            ELSE coalesce(metric_total, 0e0)
          END AS user_value,
          CASE
            WHEN metric_kind = 'conversion' THEN CASE WHEN covariate_events > 0 THEN 1e0 ELSE 0e0 END
            ELSE coalesce(covariate_total, 0e0)
          END AS covariate_value,
          CASE WHEN metric_cap IS NOT NULL AND variant IS NOT NULL THEN metric END AS cap_group,
          CASE WHEN metric_cap IS NULL OR variant IS NULL THEN user_key END AS cap_solo
        FROM users
      ) valued
    ) ranked
  ) bounded
)
