-- An event's value for a metric slot (rules/metric-slots.sql), as a SELECT list item over the
-- event's properties (JSON text) and the slot's metric_event and property_path. Included by
-- results-count.sql and results-summary.sql, so the full count and the incremental state read a
-- value the same way, and by planning-baseline.sql, so a plan measures what the results will:
--  - NULL in the base slot (no metric);
--  - 1 for conversion and count (no property): count sums the ones, conversion asks for one;
--  - for sum, the property's value when it is a number by the numeric rule (rules/property-number.sql:
--    a JSON number, or a string holding one, of magnitude at most 1e15); anything else (absent, a
--    word, true, an object, "1e400", 1e200) counts 0: the event adds nothing to the user's sum.
CASE
  WHEN metric_event IS NULL THEN NULL
  WHEN property_path IS NULL THEN 1e0
  ELSE coalesce(
    {{> rules/property-number.sql}},
    0e0
  )
END AS metric_value
