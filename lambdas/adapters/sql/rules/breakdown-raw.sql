-- An event's breakdown value as sent (insights: trends and funnels; docs/api.md "Insights"), a
-- SELECT list item over an event's columns (rules/range-events.sql: platform, country, app_version,
-- properties) and the parameters :breakdown (none, platform, country, app_version or property) and
-- :breakdown_path (the property's path, property-path.ts). NULL without a breakdown and when the
-- event has no value; rules/breakdown-kind.sql tells the two apart.
CASE :breakdown
  WHEN 'none' THEN NULL
  WHEN 'platform' THEN platform
  WHEN 'country' THEN country
  WHEN 'app_version' THEN app_version
  ELSE json_extract_scalar(properties, :breakdown_path)
END AS breakdown_raw
