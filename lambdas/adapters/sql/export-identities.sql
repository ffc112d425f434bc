-- A person's identity links for their export (services/export-people.ts, docs/privacy.md "Access
-- requests"): every link of project :project_id (the identities view holds each once:
-- identities-view.sql) whose ID or canonical ID is one of the person's IDs :ids, written through
-- :through, by the same rule a deletion removes them by. Oldest first.
SELECT
  {{> rules/identity-data-columns.sql}}
FROM {{identities}}
WHERE project_id = :project_id
  AND (
    {{> rules/person-identity-rows.sql}}
  )
ORDER BY "timestamp", id, canonical_id
