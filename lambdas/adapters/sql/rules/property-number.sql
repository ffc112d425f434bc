-- The numeric rule (docs/api.md, "The numeric rule"): an event property's value as a number, as an
-- expression over the event's properties (JSON text) and a property_path column ($["<property>"],
-- property-path.ts; NULL for none). Every analysis reads a number through this one text: a trends
-- series' sum and average (insight-trends.sql, `{{> rules/property-number.sql}}` then its alias), an
-- experiment's sum metric and the planning baseline (rules/metric-value.sql, which counts NULL as 0).
-- The value is a number when:
--  - it is a JSON number, or a string holding one in the JSON number form ("12.50" is 12.5): the
--    pattern is the JSON number grammar, so both engines cast exactly those texts, to the same double
--    (a bare CAST would let each engine's own extras through: "NaN", "Infinity", "0x10", " 1");
--  - and its magnitude is at most 1e15 (NUMBER_BOUND in domain/numeric-rule.ts): "1e400" casts to
--    Infinity, and 1e200 is finite but its square is not, so a sum of squares would overflow. Within
--    the bound, a user's total over a billion events squared and summed over a billion users stays
--    below 1e67, far inside a double, so no sum or sum of squares of any analysis can reach Infinity.
-- Anything else (absent, a word, true, an object, a number beyond the bound) is NULL: not a number.
-- A nested CASE, not AND: both engines evaluate CASE branches in order, so the cast only ever sees a
-- text in the number form (DuckDB's CAST of a word fails the query).
CASE
  WHEN property_path IS NULL THEN NULL
  WHEN NOT regexp_like(json_extract_scalar(properties, property_path), '^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$') THEN NULL
  WHEN abs(CAST(json_extract_scalar(properties, property_path) AS double)) <= 1e15
    THEN CAST(json_extract_scalar(properties, property_path) AS double)
END
