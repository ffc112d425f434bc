-- A numeric event property (insights: a trends series' sum or average), as a SELECT list item over
-- the event's properties (JSON text) and a property_path column ($["<property>"], or NULL for none):
-- the property's value when it is a number, a JSON number or a string holding one in the JSON number
-- form ("12.50" is 12.5), else NULL. The same test as rules/metric-value.sql, which counts a
-- non-number as 0 for an experiment's per-user sums; here NULL, so an average is over the events that
-- carry a number and a sum adds nothing for the others.
CASE
  WHEN property_path IS NULL THEN NULL
  WHEN regexp_like(json_extract_scalar(properties, property_path), '^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$')
    THEN CAST(json_extract_scalar(properties, property_path) AS double)
END AS property_number
