-- The results job's base (issue 21; docs/decisions/incremental-results.md, "Flat state reads"): the
-- experiment's closed state days rolled up with the previous base into as few rows as the counting
-- rules of results-count-incremental.sql allow, so a run reads the base plus the open days' slices
-- whatever the experiment's age. DuckDB COPYs it to one Parquet file locally; Athena INSERTs it INTO
-- tally.results_base in a fresh generation, committed afterwards by the job (an S3 object on AWS, a
-- file locally), so a partial write is never read.
--
-- NOT A WHOLE QUERY: render-incremental.ts puts `WITH base_rows AS (<the previous base>),` in front
-- of this text (results-base-rows.sql, or no rows for an experiment's first base).
--
-- Parameters: :project_id, :experiment_id, :closed_from_dt and :closed_to_dt (the state days rolled
-- up: from the previous base's boundary, or the empty state's day, to the day before the new
-- boundary; each state query is bounded by dt), :watermark (the committed watermark: only slices
-- ending by it are rolled up), :generation (the new generation's name, a partition value).
--
-- Output: the state's columns (contract/results-state.ts), then project_id, experiment_id and
-- generation (results_base's partition columns); metric_sources (set on the state's commit markers
-- only) is NULL: the commit names the base's set of metric sources (domain/results-base.ts). Rows, re-aggregated by the summary's grouping
-- (sent_user_id, variant, is_goal, on_hour, pending_key, metric_source, event_key) after each input row is cut into its parts:
--  - enrollment rows (variant set): one per ID as sent and variant, on_hour NULL, min first_key and
--    first_at (the counting rules use only the smallest of each per user and variant);
--  - goal rows (is_goal, variant NULL): one per ID as sent and UTC hour (on_hour), max last_at
--    (whether the hour has a goal event at or after a time E is last_at >= E). An hour is dropped
--    only after the ID's conversion hour against its own first enrollment (first_at of its rows
--    here): any user the ID ends up in (identity links arrive late and merge IDs) enrolled at or
--    before that time, so that hour already has a goal event at or after the user's enrollment, and
--    no later hour can be the first one. Hours before it are kept (a link can move the enrollment
--    earlier), as are all hours of an ID that never enrolled under itself (a link can give it any
--    enrollment time): exactness needs per-ID goal hours there, which the decision record measures;
--  - metric rows (issue 22; metric_source set, variant and is_goal NULL: one per metric source and
--    event, keyed by event_key) stay one per (metric_source, event_key) as the count takes them: min
--    first_key and first_at, and the value of the copy received first (min_by first_key), so an event
--    read twice (a slice and the base that holds it, copies in two slices) is kept once; so does any
--    other kind of row (neither enrollment nor goal), re-aggregated by the grouping only;
--  - pending rows (an event timestamped after its slice's end) stay as they are, unless their time
--    is at or before :watermark: every run the state serves ends at or after the committed
--    watermark (domain/results-watermark.ts stateServes), so they count in all of them and merge.
-- The aggregates are idempotent (min, max, min_by of the smallest first_key), so rows read twice (a slice rewritten after a failed
-- commit, a base and the slices it already holds) count once, and the base of a base is itself.
input_rows AS (
  SELECT sent_user_id, variant, is_goal, on_hour, pending_key, first_key, first_at, last_at, metric_source, event_key, metric_value, platform, country, app_version FROM base_rows
  UNION ALL
  SELECT sent_user_id, variant, is_goal, on_hour, pending_key, first_key, first_at, last_at, metric_source, event_key, metric_value, platform, country, app_version
  FROM {{state}}
  WHERE project_id = :project_id
    AND experiment_id = :experiment_id
    AND dt BETWEEN :closed_from_dt AND :closed_to_dt
    AND slice_hi <= :watermark
    -- Commit markers (Athena: one row per committed slice, results-commit.sql) carry no ID.
    AND sent_user_id IS NOT NULL
),
settled AS (
  SELECT
    sent_user_id,
    variant,
    is_goal,
    on_hour,
    CASE WHEN coalesce(first_at, last_at) > :watermark THEN pending_key END AS pending_key,
    first_key,
    first_at,
    last_at,
    metric_source,
    event_key,
    metric_value,
    platform,
    country,
    app_version
  FROM input_rows
),
-- Each settled row as its enrollment part and its goal part (an exposure can be a goal event too);
-- a pending row whole, and so any other kind of row (neither enrollment nor goal): it is kept as it
-- is, re-aggregated by the grouping only. A new column of the state must be added here and to the
-- SELECT and GROUP BY below (test/store/results-incremental-athena.test.ts checks the columns).
parts AS (
  SELECT
    s.sent_user_id,
    CASE WHEN p.part = 'goal' THEN NULL ELSE s.variant END AS variant,
    CASE WHEN p.part = 'enrollment' THEN false ELSE s.is_goal END AS is_goal,
    CASE WHEN p.part = 'enrollment' THEN NULL ELSE s.on_hour END AS on_hour,
    s.pending_key,
    CASE WHEN p.part = 'goal' THEN NULL ELSE s.first_key END AS first_key,
    CASE WHEN p.part = 'goal' THEN NULL ELSE s.first_at END AS first_at,
    CASE WHEN p.part = 'enrollment' THEN NULL ELSE s.last_at END AS last_at,
    s.metric_source,
    s.event_key,
    s.metric_value,
    CASE WHEN p.part = 'goal' THEN NULL ELSE s.platform END AS platform,
    CASE WHEN p.part = 'goal' THEN NULL ELSE s.country END AS country,
    CASE WHEN p.part = 'goal' THEN NULL ELSE s.app_version END AS app_version
  FROM settled s
  CROSS JOIN UNNEST(ARRAY['enrollment', 'goal', 'whole']) AS p (part)
  -- A metric row (is_goal NULL, metric_source set) is neither an enrollment nor a goal part: whole.
  WHERE (p.part = 'enrollment' AND s.pending_key IS NULL AND s.metric_source IS NULL AND s.variant IS NOT NULL)
    OR (p.part = 'goal' AND s.pending_key IS NULL AND s.metric_source IS NULL AND coalesce(s.is_goal, false))
    OR (
      p.part = 'whole'
      AND (s.pending_key IS NOT NULL OR s.metric_source IS NOT NULL OR (s.variant IS NULL AND NOT coalesce(s.is_goal, false)))
    )
),
merged AS (
  SELECT
    {{> rules/summary-merge.sql}}
  FROM parts
  GROUP BY sent_user_id, variant, is_goal, on_hour, pending_key, metric_source, event_key
),
-- The ID's own first enrollment (settled rows only: a pending one may fall after a run's end).
own_enrolled AS (
  SELECT
    *,
    min(CASE WHEN variant IS NOT NULL AND pending_key IS NULL AND metric_source IS NULL THEN first_at END) OVER (PARTITION BY sent_user_id) AS own_enrolled_at
  FROM merged
),
-- The ID's conversion hour against it: the first hour with a goal event at or after it.
own_converted AS (
  SELECT
    *,
    min(CASE WHEN is_goal AND variant IS NULL AND pending_key IS NULL AND last_at >= own_enrolled_at THEN on_hour END)
      OVER (PARTITION BY sent_user_id) AS own_converted_hour
  FROM own_enrolled
)
SELECT
  sent_user_id,
  variant,
  is_goal,
  on_hour,
  pending_key,
  first_key,
  first_at,
  last_at,
  CAST(NULL AS varchar) AS slice_lo,
  :watermark AS slice_hi,
  metric_source,
  event_key,
  metric_value,
  CAST(NULL AS varchar) AS metric_sources,
  platform,
  country,
  app_version,
  :project_id AS project_id,
  :experiment_id AS experiment_id,
  :generation AS generation
FROM own_converted
WHERE own_converted_hour IS NULL
  OR NOT (coalesce(is_goal, false) AND variant IS NULL AND pending_key IS NULL AND metric_source IS NULL AND on_hour > own_converted_hour)
