-- The identity links naming any of the IDs :ids in project :project_id, curated or still in landing, old
-- and current alike (services/erase-people.ts follows them until the person's group is complete: the
-- person is every ID linked to the given one, now or as it was).
SELECT DISTINCT id, canonical_id
FROM (
  SELECT id, canonical_id, project_id FROM {{curated}}
  UNION ALL
  SELECT id, canonical_id, project_id FROM {{landing}}
) links
WHERE project_id = :project_id
  AND (id IN (:ids) OR canonical_id IN (:ids))
