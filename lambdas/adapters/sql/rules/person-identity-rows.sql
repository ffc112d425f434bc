-- A deleted person's identity links (services/erase-people.ts, docs/decisions/erasure.md): those whose
-- ID or canonical ID is one of the person's IDs :ids, written through the deletion's request :through.
(id IN (:ids) OR canonical_id IN (:ids)) AND "timestamp" <= :through
