-- An event's value for a metric slot (rules/metric-slots.sql), as a SELECT list item over the
-- event's properties (JSON text) and the slot's metric_event and metric_path. Included by
-- results-count.sql and results-summary.sql, so the full count and the incremental state read a
-- value the same way, and by planning-baseline.sql, so a plan measures what the results will:
--  - NULL in the base slot (no metric);
--  - 1 for conversion and count (no property): count sums the ones, conversion asks for one;
--  - for sum, the property's value when it is a number: a JSON number, or a string holding one in the
--    same form (an SDK that sends prices as text), so "12.50" counts 12.5; anything else (absent, a
--    word, true, an object) counts 0. The pattern is the JSON number grammar: both engines cast
--    exactly those texts to the same double (a bare CAST would let each engine's own extras through,
--    such as Trino's "NaN" or hexadecimal floats).
CASE
  WHEN metric_event IS NULL THEN NULL
  WHEN metric_path IS NULL THEN 1e0
  WHEN regexp_like(json_extract_scalar(properties, metric_path), '^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$')
    THEN CAST(json_extract_scalar(properties, metric_path) AS double)
  ELSE 0e0
END AS metric_value
