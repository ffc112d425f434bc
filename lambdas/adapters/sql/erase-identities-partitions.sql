-- The curated partitions of project :project_id holding a deleted person's rows (services/erase-people.ts):
-- the ones a deletion rewrites, with the person's rows in each (what the rewrite leaves out). Athena reads
-- only the columns the condition names.
SELECT project_id, dt, count(*) AS person_rows
FROM {{curated}}
WHERE project_id = :project_id
  AND (
    {{> rules/person-identity-rows.sql}}
  )
GROUP BY project_id, dt
