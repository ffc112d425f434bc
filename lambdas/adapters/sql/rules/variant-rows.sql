-- The result rows (spec "Result counting rules"; issue 13 for the day rows): per configured variant
-- (:variants) a totals row (on_day NULL: enrolled, converted, multiple_exposures) and day rows (the
-- users who enrolled on on_day, and who converted on it). The final SELECT of results-count.sql and
-- results-count-incremental.sql (`{{> rules/variant-rows.sql}}` after their WITH list), so both give
-- the same rows from their users. Needs a CTE users, one row per canonical user:
--   user_key       the canonical ID
--   variant        the variant of the user's first enrollment event (NULL: never enrolled)
--   enrolled_at    the time of the first enrollment event
--   variants_seen  how many variants the user's enrollment events named
--   last_goal_at   the time of the user's last goal event of the run: the user converted exactly when
--                  it is at or after enrolled_at
--   converted_at   the time of the first goal event at or after enrollment, or at least its day (the
--                  first ten characters are the conversion day); NULL exactly when the user did not
--                  convert
--
-- One pass over users (referenced once, see relevant_enrolled): each variant's users three times
-- over, as kind 'total' (the totals row, on_day NULL), 'enrolled' (on their enrollment day) and
-- 'converted' (on their conversion day, converters only); a variant nobody enrolled in keeps one
-- 'total' row of NULLs from the LEFT JOIN, so it gets a totals row of zeros. Days are the first ten
-- characters of the fixed-form timestamps (substr is 1-based in both engines).
-- count(CASE WHEN ... THEN 1 END), not count_if: over a group of only NULLs (a variant nobody
-- enrolled in) Trino's count_if gives 0 but DuckDB's gives NULL.
SELECT
  variant,
  on_day,
  count(CASE WHEN kind IN ('total', 'enrolled') THEN user_key END) AS enrolled,
  count(
    CASE
      WHEN kind = 'total' AND last_goal_at >= enrolled_at THEN 1
      WHEN kind = 'converted' THEN 1
    END
  ) AS converted,
  CAST(sum(count(CASE WHEN kind = 'total' AND variants_seen > 1 THEN 1 END)) OVER () AS BIGINT) AS multiple_exposures
FROM (
  SELECT
    v.variant,
    k.kind,
    u.user_key,
    u.enrolled_at,
    u.last_goal_at,
    u.variants_seen,
    CASE k.kind
      WHEN 'enrolled' THEN substr(u.enrolled_at, 1, 10)
      WHEN 'converted' THEN substr(u.converted_at, 1, 10)
    END AS on_day
  FROM UNNEST(ARRAY[:variants]) AS v (variant)
  LEFT JOIN users u ON u.variant = v.variant
  CROSS JOIN UNNEST(ARRAY['total', 'enrolled', 'converted']) AS k (kind)
  WHERE k.kind = 'total'
    OR (k.kind = 'enrolled' AND u.enrolled_at IS NOT NULL)
    OR (k.kind = 'converted' AND u.converted_at IS NOT NULL)
) per_kind
GROUP BY variant, on_day
ORDER BY variant, on_day
