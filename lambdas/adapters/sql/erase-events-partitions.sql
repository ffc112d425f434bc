-- The curated partitions of project :project_id holding a deleted person's rows (services/erase-people.ts):
-- the ones a deletion rewrites. Athena reads only the columns the condition names.
SELECT DISTINCT project_id, dt
FROM {{curated}}
WHERE project_id = :project_id
  AND (
    {{> rules/person-event-rows.sql}}
  )
