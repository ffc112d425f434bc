-- The metric slots (issue 22; docs/identity-and-experiments.md, "Metrics"): a FROM item, aliased m,
-- that fans the rows of a results query out, one copy per slot. Included (`{{> rules/metric-slots.sql}}`)
-- by results-count.sql and results-count-incremental.sql (one slot per metric of the request) and by
-- results-summary.sql (one slot per metric source: an event, and the property a `sum` reads).
-- :metric_slots is '[]' (the base slot: the enrollment and goal rows the counts have always read)
-- followed by one JSON array per slot, rendered by render.ts (metricSlots, sourceSlots):
--   [index, kind, event, path, cap, source]
--   index   the metric's position in CountRequest.metrics as text (NULL in a source slot)
--   kind    conversion, count or sum (NULL in a source slot)
--   event   the event the metric reads
--   path    the JSON path of the summed property, $["<property>"] (NULL: conversion and count)
--   cap     the percentile the per-user values are capped at, as text (NULL: not capped)
--   source  [event, property] as JSON text: the state's metric_source of the slot's events
-- A list of JSON texts and not parallel lists: both engines read '$[n]' of a JSON array the same
-- way, and neither has a list of rows literal the other reads. The base slot's fields are all NULL.
(
  SELECT
    metric,
    json_extract_scalar(metric, '$[1]') AS metric_kind,
    json_extract_scalar(metric, '$[2]') AS metric_event,
    json_extract_scalar(metric, '$[3]') AS property_path,
    CAST(json_extract_scalar(metric, '$[4]') AS double) AS metric_cap,
    json_extract_scalar(metric, '$[5]') AS metric_source
  FROM UNNEST(ARRAY[:metric_slots]) AS slots (metric)
) m
