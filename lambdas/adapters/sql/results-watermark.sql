-- The committed watermark of an experiment's incremental results state on AWS (issue 13): the end
-- of the latest committed slice (results-commit.sql's marker rows). NULL: an empty state, which the
-- job starts from the run's start minus the future-timestamp clamp (domain/results-watermark.ts).
-- The watermark is that of the request's set of metric sources (results-commit.sql; markers
-- written before metrics existed have none: the empty set '[]'). Each set's markers form one chain
-- from the empty state's watermark, so a state read with a set's watermark holds every event of the
-- set's sources received before it; a set never committed starts from the empty state (its first
-- slice summarises the run so far again, the other rows it finds are idempotent or deduplicated).
-- Reads only the experiment's partitions of {{state}}, bounded by dt (the days its slices can start
-- on: from the empty state's watermark to the run's day), so projection expands only those days.
SELECT max(slice_hi) AS watermark
FROM {{state}}
WHERE project_id = :project_id
  AND experiment_id = :experiment_id
  AND dt BETWEEN :state_from_dt AND :state_to_dt
  AND sent_user_id IS NULL
  AND coalesce(metric_sources, '[]') = :metric_sources
