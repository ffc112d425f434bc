-- The data columns of an identity link (lambdas/domain/identity.ts IdentityRecord, project_id aside):
-- the SELECT list of the identities' compaction and view. test/unit/sql-include.test.ts checks it.
"id",
"canonical_id",
"version",
"timestamp",
"reason"
