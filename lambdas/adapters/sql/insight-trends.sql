-- Trends (issue 25; docs/api.md "Insights", docs/decisions/insights.md): per series (an event and
-- how it is measured), per bucket (hour, day or week) and per breakdown value, the events, the
-- distinct canonical users, and the sum and count of a numeric property, for the range and, moved
-- forward onto the range's buckets, for the period of the same length just before it.
--
-- ONE SOURCE FOR BOTH ENGINES (docs/decisions/one-query-source.md): the Trino dialect, which DuckDB
-- runs with the Trino-compat macros. The rules it shares with the results: identity resolution
-- (rules/canonical-ids.sql: users count under the CURRENT canonical ID of the ID they sent, so a
-- login mid-period merges the two IDs into one user) and which copy of an event counts
-- (rules/copy-rank.sql, through rules/range-events.sql: the events every insight reads).
--
-- Days, weeks and hours are the project's time zone's (:time_zone; rules/range-events.sql).
--
-- Parameters:
--   :project_id, :identities_from_dt (the day before the project's creation, as results-count.sql)
--   :time_zone               the project's time zone (IANA name, or UTC)
--   :from_day, :to_day       the local days read: the previous period's first day (the range's first
--                            day without comparison) to the range's last day
--   :scan_from_dt, :scan_to_dt  the only event partitions (UTC days) read: those covering the local days
--   :from_dt                 the range's first local day: events before it are the previous period's
--   :period_days             the range's length in days, the previous period's shift onto the range
--   :data_through            arrival watermark (ISO 8601 UTC): events received after it are left out,
--                            so one text always gives the same answer (the cache key)
--   :events                  the series' event names (an IN list)
--   :series                  one JSON array per series: [index, event, property path or null]
--   :interval                hour, day or week
--   :breakdown               none, platform, country, app_version or property
--   :breakdown_path          $["<property>"] for a property breakdown, else '$' (never a scalar)
WITH
{{> rules/canonical-ids.sql}},
series AS (
  SELECT
    CAST(json_extract_scalar(s, '$[0]') AS integer) AS series_index,
    json_extract_scalar(s, '$[1]') AS series_event,
    json_extract_scalar(s, '$[2]') AS property_path
  FROM UNNEST(ARRAY[:series]) AS t (s)
),
-- The events of both periods, each once. Read by series_events, which top_values and bucketed
-- both read: Trino runs a WITH relation again for each reader (the identities are joined in bucketed only).
range_events AS (
  {{> rules/range-events.sql}}
),
-- One row per series an event belongs to, with its period, its (shifted) local day and hour (the UTC
-- instant its local hour starts: the bucket's key, YYYY-MM-DDTHH:MMZ), the user ID it was sent
-- with and its value, and its breakdown (rules/breakdown-raw.sql, rules/breakdown-kind.sql). Users are
-- resolved (canonical) in bucketed, its one reader that needs them: top_values reads this too, and
-- each reader of a WITH relation runs it again (Trino inlines it), so the identities table is read once.
series_events AS (
  SELECT
    series_index,
    period,
    CAST(CAST(CAST(day AS date) + (CASE WHEN period = 'previous' THEN INTERVAL :period_days DAY ELSE INTERVAL '0' DAY END) AS date) AS varchar) AS on_day,
    hour_at + (CASE WHEN period = 'previous' THEN INTERVAL :period_days DAY ELSE INTERVAL '0' DAY END) AS on_hour,
    "timestamp",
    sent_user_id,
    {{> rules/property-number.sql}}
    AS property_number,
    breakdown_raw,
    {{> rules/breakdown-kind.sql}}
  FROM (
    SELECT
      s.series_index,
      CASE WHEN e.day >= :from_dt THEN 'current' ELSE 'previous' END AS period,
      e.day,
      e.hour_at,
      e."timestamp",
      e.sent_user_id,
      e.properties,
      s.property_path,
      {{> rules/breakdown-raw.sql}}
    FROM range_events e
    JOIN series s ON s.series_event = e.name
  ) joined
),
-- The top 10 breakdown lines by events of the range (the values and the missing one alike; ties by
-- value, the missing one as the word "unknown", a value before the missing), over all series.
-- Every other value is grouped into one line of kind 'other', ranked 12: last. The missing one is
-- never grouped: outside the top 10 it is its own line, ranked 11 (as results' breakdowns keep it).
top_values AS (
  SELECT breakdown_key, breakdown_rank
  FROM (
    SELECT breakdown_key, row_number() OVER (ORDER BY count(*) DESC, coalesce(breakdown_raw, 'unknown'), breakdown_kind DESC) AS breakdown_rank
    FROM series_events
    WHERE period = 'current' AND breakdown_key IS NOT NULL
    GROUP BY breakdown_key, breakdown_kind, breakdown_raw
  ) ranked
  WHERE breakdown_rank <= 10
),
bucketed AS (
  SELECT
    e.series_index,
    e.period,
    CASE :interval
      WHEN 'hour' THEN concat(replace(substr(CAST(e.on_hour AS varchar), 1, 16), ' ', 'T'), 'Z')
      WHEN 'day' THEN e.on_day
      ELSE CAST(CAST(date_trunc('week', CAST(e.on_day AS date)) AS date) AS varchar)
    END AS bucket,
    CASE WHEN t.breakdown_rank IS NULL AND e.breakdown_kind = 'value' THEN 'other' ELSE e.breakdown_kind END AS breakdown_kind,
    CASE WHEN t.breakdown_rank IS NULL THEN NULL ELSE e.breakdown_raw END AS breakdown_value,
    CASE
      WHEN e.breakdown_key IS NULL THEN NULL
      WHEN t.breakdown_rank IS NOT NULL THEN t.breakdown_rank
      WHEN e.breakdown_kind = 'unknown' THEN 11
      ELSE 12
    END AS breakdown_rank,
    coalesce(c.canonical_id, e.sent_user_id) AS user_key,
    e.property_number
  FROM series_events e
  LEFT JOIN top_values t ON t.breakdown_key = e.breakdown_key
  LEFT JOIN canonical c ON c.id = e.sent_user_id
)
-- Per bucket, and per period (bucket NULL): users are distinct over what the row covers.
SELECT
  series_index,
  period,
  bucket,
  breakdown_kind,
  breakdown_value,
  min(breakdown_rank) AS breakdown_rank,
  count(*) AS events,
  count(DISTINCT user_key) AS users,
  sum(property_number) AS value_sum,
  count(property_number) AS value_count
FROM bucketed
GROUP BY GROUPING SETS ((series_index, period, bucket, breakdown_kind, breakdown_value), (series_index, period, breakdown_kind, breakdown_value))
ORDER BY series_index, period, bucket, breakdown_kind, breakdown_value
