-- A deleted person's events (services/erase-people.ts, docs/decisions/erasure.md): those naming one of
-- the person's IDs :ids, as resolved or as sent, received through the deletion's request :through
-- (an ID that sends again after it is a new person). A condition of one row: TRUE, FALSE or NULL.
(user_id IN (:ids) OR sent_user_id IN (:ids)) AND received_at <= :through
