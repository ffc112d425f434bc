-- The rows of an experiment's committed base (issue 21; results-base.sql builds it): one generation
-- of tally.results_base on AWS, named by the job's commit (its `generation` partition is projected
-- with the injected type, so every read names exactly one prefix), the committed base file locally.
-- A CTE body (`base_rows AS (<this>)`) for results-base.sql (the previous base) and
-- results-count-incremental.sql (the base under the open days' slices).
SELECT sent_user_id, variant, is_goal, on_hour, pending_key, first_key, first_at, last_at, metric_source, event_key, metric_value, platform, country, app_version
FROM {{base}}
WHERE project_id = :project_id
  AND experiment_id = :experiment_id
  AND generation = :generation
