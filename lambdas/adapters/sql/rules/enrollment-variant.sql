-- Enrollment: the variant an event enrolls its user in for this experiment (spec "Result counting
-- rules"), as a SELECT list item over the columns of rules/event-columns.sql. Included
-- (`{{> rules/enrollment-variant.sql}}`) by results-count.sql and results-summary.sql.
-- An $experiment_exposure (:exposure_event) naming the experiment in any of its spellings
-- (:experiment_spellings: as configured, Tally's snake_case, the MGM SDKs' snake_case) enrolls in its
-- $variant; otherwise the event enrolls in the value of its super property. Either counts only when
-- it is a configured variant (:variants); otherwise the variant is NULL and the event enrolls nobody.
CASE
  WHEN name = :exposure_event
    AND exposure_experiment IN (:experiment_spellings)
    AND exposure_variant IN (:variants)
    THEN exposure_variant
  WHEN super_variant IN (:variants) THEN super_variant
END AS variant
