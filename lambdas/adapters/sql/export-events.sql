-- A person's events for their export (services/export-people.ts, docs/privacy.md "Access requests"):
-- every event once (the events view holds each once: events-view.sql) of project :project_id naming
-- one of the person's IDs :ids, received through :through (the export's run), by the same rule a
-- deletion removes them by. Oldest first.
SELECT
  {{> rules/event-data-columns.sql}}
FROM {{events}}
WHERE project_id = :project_id
  AND (
    {{> rules/person-event-rows.sql}}
  )
ORDER BY "timestamp", received_at, event_id
