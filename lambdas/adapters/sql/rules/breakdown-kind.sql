-- What a breakdown line is (insights/breakdown-line.ts), two SELECT list items over breakdown_raw
-- (rules/breakdown-raw.sql) and :breakdown: breakdown_kind 'value' (the value is breakdown_raw) or
-- 'unknown' (the event has none); breakdown_key one text for the pair, 'v:' and the value or
-- 'unknown', which the top 10 are ranked and joined by. A value sent as "unknown" or "other" is
-- 'v:unknown' or 'v:other': it never meets the missing value or the grouped rest (kind 'other', which
-- the including query gives every value outside its top 10). Both NULL without a breakdown.
CASE WHEN :breakdown = 'none' THEN NULL WHEN breakdown_raw IS NULL THEN 'unknown' ELSE 'value' END AS breakdown_kind,
CASE WHEN :breakdown = 'none' THEN NULL WHEN breakdown_raw IS NULL THEN 'unknown' ELSE concat('v:', breakdown_raw) END AS breakdown_key
