-- Breakdowns (docs/decisions/breakdowns.md): per variant, dimension (platform, country, app_version)
-- and value (segment; '' when the first enrollment event had none) a row (period NULL, metric '[]')
-- of the enrolled users and converters of the goal, the kinds named for the dimension; other rows
-- have dimension and segment NULL. The user_values rows carry platform, country and app_version.
-- The result rows (spec "Result counting rules"; issue 13 for the period rows; issue 22 for the metric
-- rows): per configured variant (:variants) a totals row (period NULL, metric '[]': enrolled,
-- converted, multiple_exposures), period rows (the users who enrolled in period, and who converted
-- in it; a period is a UTC day YYYY-MM-DD, or a UTC hour YYYY-MM-DDTHH when :series_interval is
-- 'hour', the series of a run under 3 days: domain/results-series.ts) and a row per metric of the
-- request (period NULL, metric its slot, rules/metric-slots.sql: the
-- users enrolled as enrolled, metric_sum and metric_sum_squares of their per-user values, metric_min
-- the smallest value of a counted event). The final SELECT of results-count.sql and
-- results-count-incremental.sql (`{{> rules/variant-rows.sql}}` after their WITH list), so both give
-- the same rows from their users. Needs a CTE user_values (rules/metric-capping.sql over users), one
-- row per canonical user and metric slot:
--   user_key       the canonical ID
--   metric         the slot: '[]' for the counts above, else a metric's definition
--   variant        the variant of the user's first enrollment event (NULL: never enrolled)
--   enrolled_at    the time of the first enrollment event
--   variants_seen  how many variants the user's enrollment events named
--   last_goal_at   the time of the user's last goal event of the run: the user converted exactly when
--                  it is at or after enrolled_at
--   converted_at   the time of the first goal event at or after enrollment, or at least its hour (the
--                  first 13 characters are the conversion hour, the first ten its day); NULL exactly
--                  when the user did not convert
--   metric_user_value, metric_min  the user's (capped) value of the metric and smallest event value
--   covariate_user_value  the user's (capped) value of the metric before exposure (CUPED's covariate):
--                  the metric rows also give its sum, sum of squares and the sum of its products with
--                  metric_user_value (docs/decisions/cuped.md)
--
-- One pass over users (referenced once, see relevant_enrolled): each variant's users three times
-- over, as kind 'total' (the totals row, period NULL), 'enrolled' (in their enrollment period) and
-- 'converted' (in their conversion period, converters only); a variant nobody enrolled in keeps one
-- 'total' row of NULLs from the LEFT JOIN, so it gets a totals row of zeros (its metric rows are
-- absent: render.ts gives such a variant's metrics zeros). A metric slot's users count as 'total'
-- only. Days are the first ten characters of the fixed-form timestamps, hours the first 13 (substr is
-- 1-based in both engines).
-- count(CASE WHEN ... THEN 1 END), not count_if: over a group of only NULLs (a variant nobody
-- enrolled in) Trino's count_if gives 0 but DuckDB's gives NULL.
SELECT
  variant,
  period,
  metric,
  dimension,
  segment,
  count(CASE WHEN kind IN ('total', 'enrolled', 'platform', 'country', 'app_version') THEN user_key END) AS enrolled,
  count(
    CASE
      WHEN kind IN ('total', 'platform', 'country', 'app_version') AND metric = '[]' AND last_goal_at >= enrolled_at THEN 1
      WHEN kind = 'converted' THEN 1
    END
  ) AS converted,
  CAST(sum(count(CASE WHEN kind = 'total' AND metric = '[]' AND variants_seen > 1 THEN 1 END)) OVER () AS BIGINT) AS multiple_exposures,
  sum(CASE WHEN metric <> '[]' THEN metric_user_value END) AS metric_sum,
  sum(CASE WHEN metric <> '[]' THEN metric_user_value * metric_user_value END) AS metric_sum_squares,
  min(CASE WHEN metric <> '[]' THEN metric_min END) AS metric_min,
  sum(CASE WHEN metric <> '[]' THEN covariate_user_value END) AS covariate_sum,
  sum(CASE WHEN metric <> '[]' THEN covariate_user_value * covariate_user_value END) AS covariate_sum_squares,
  sum(CASE WHEN metric <> '[]' THEN covariate_user_value * metric_user_value END) AS covariate_sum_products
FROM (
  SELECT
    v.variant,
    k.kind,
    coalesce(u.metric, '[]') AS metric,
    u.user_key,
    u.enrolled_at,
    u.last_goal_at,
    u.variants_seen,
    u.metric_user_value,
    u.metric_min,
    u.covariate_user_value,
    substr(
      CASE k.kind
        WHEN 'enrolled' THEN u.enrolled_at
        WHEN 'converted' THEN u.converted_at
      END,
      1,
      CASE WHEN :series_interval = 'hour' THEN 13 ELSE 10 END
    ) AS period,
    CASE WHEN k.kind IN ('platform', 'country', 'app_version') THEN k.kind END AS dimension,
    CASE k.kind
      WHEN 'platform' THEN u.platform
      WHEN 'country' THEN u.country
      WHEN 'app_version' THEN u.app_version
    END AS segment
  FROM UNNEST(ARRAY[:variants]) AS v (variant)
  LEFT JOIN user_values u ON u.variant = v.variant
  CROSS JOIN UNNEST(ARRAY['total', 'enrolled', 'converted', 'platform', 'country', 'app_version']) AS k (kind)
  WHERE k.kind = 'total'
    OR (k.kind = 'enrolled' AND u.metric = '[]' AND u.enrolled_at IS NOT NULL)
    OR (k.kind = 'converted' AND u.metric = '[]' AND u.converted_at IS NOT NULL)
    OR (k.kind IN ('platform', 'country', 'app_version') AND u.metric = '[]')
) per_kind
GROUP BY variant, period, metric, dimension, segment
ORDER BY variant, period, metric, dimension, segment
