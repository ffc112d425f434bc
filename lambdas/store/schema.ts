/**
 * DynamoDB table layouts, declared once. The CDK stack (lib/) and the local bootstrap (dynalite)
 * both build their tables from this, so local and AWS keys, indexes and TTL attributes cannot drift.
 * Plain data: this file imports nothing.
 */
export interface TableLayout {
  /** Logical name; the environment variable holding the physical name is TABLE_<NAME>. */
  name: TableName;
  partitionKey: string;
  sortKey?: string;
  /** Global secondary indexes, all string keys, all projecting every attribute. */
  indexes: Array<{ name: string; partitionKey: string; sortKey?: string }>;
  /** Attribute holding an epoch-seconds expiry (DynamoDB TTL); none when items never expire. */
  ttlAttribute?: string;
  /** Whether losing this table loses user data (removal policy RETAIN by default). */
  holdsUserData: boolean;
}

export type TableName =
  | 'projects'
  | 'api_keys'
  | 'events'
  | 'identities'
  | 'experiments'
  | 'assignments'
  | 'results'
  | 'insight_queries'
  | 'saved_insights'
  | 'dashboards'
  | 'audit_log'
  | 'deletions'
  | 'exports';

export const TABLES: Record<TableName, TableLayout> = {
  projects: { name: 'projects', partitionKey: 'id', indexes: [], holdsUserData: true },
  api_keys: {
    name: 'api_keys',
    partitionKey: 'key_hash',
    indexes: [{ name: 'by_project', partitionKey: 'project_id', sortKey: 'id' }],
    holdsUserData: true,
  },
  // The events ledger: a keys-only claim per event, keyed by (project, dedupe key), and one commit per
  // request (lambdas/store/event-ledger.ts). It enforces deduplication with conditional writes and holds
  // no event content. No index: an index keyed by project would put a project's every event on one
  // partition (test/stack/partition-keys.test.ts).
  events: {
    name: 'events',
    partitionKey: 'pk',
    indexes: [],
    ttlAttribute: 'expires_at',
    holdsUserData: false,
  },
  // One item per ID a project has seen: when it was first seen, the ID it points to (union-find:
  // a root points to itself and is the canonical ID of its group), and profile fields.
  identities: {
    name: 'identities',
    partitionKey: 'pk',
    indexes: [{ name: 'by_canonical', partitionKey: 'canonical_pk', sortKey: 'id' }],
    holdsUserData: true,
  },
  // Per project: "exp#<id>" items (the experiments) and "name#<spelling>" items (name claims with
  // experiment_id and claimed_at, so that two experiments can never share a name, even under
  // concurrent creates).
  experiments: { name: 'experiments', partitionKey: 'project_id', sortKey: 'sk', indexes: [], holdsUserData: true },
  // Sticky assignments: one item per (project, experiment, canonical ID), written once.
  assignments: { name: 'assignments', partitionKey: 'pk', indexes: [], holdsUserData: true },
  // The latest computed results of each experiment (recomputable from the raw stream).
  results: { name: 'results', partitionKey: 'project_id', sortKey: 'experiment_id', indexes: [], holdsUserData: false },
  // The insight queries started per project (docs/decisions/insights.md, "Cache"): one item per query
  // ID (the hash of its text and data watermark), with the engine's execution ID and state; the rows
  // stay in the engine's result files. Expire after INSIGHT_QUERY_TTL_DAYS (recomputable).
  insight_queries: {
    name: 'insight_queries',
    partitionKey: 'project_id',
    sortKey: 'query_id',
    indexes: [],
    ttlAttribute: 'expires_at',
    holdsUserData: false,
  },
  // The saved insights of each project (name, kind, definition): what a team made, so kept.
  saved_insights: { name: 'saved_insights', partitionKey: 'project_id', sortKey: 'id', indexes: [], holdsUserData: true },
  // The dashboards of each project (name, the saved insights shown, a range override): kept like them.
  dashboards: { name: 'dashboards', partitionKey: 'project_id', sortKey: 'id', indexes: [], holdsUserData: true },
  // The audit log of admin writes (docs/decisions/audit-log.md): one partition ("log"), sorted by time
  // and entry ID, so the listing is one Query newest first. Admin writes are people's clicks: far below
  // one partition's 1,000 writes per second. Entries expire after AUDIT_RETENTION_DAYS.
  audit_log: { name: 'audit_log', partitionKey: 'pk', sortKey: 'sk', indexes: [], ttlAttribute: 'expires_at', holdsUserData: true },
  // The deletions of people (docs/decisions/erasure.md): per project, sorted by request time and ID, so
  // a project lists its own newest first with one Query. Each item holds its progress step by step; the
  // compaction job finds the unfinished ones with a Scan (a few items: deletions are rare).
  deletions: { name: 'deletions', partitionKey: 'project_id', sortKey: 'sk', indexes: [], holdsUserData: true },
  // The exports of people (docs/decisions/erasure.md "Export"): the same layout as the deletions.
  exports: { name: 'exports', partitionKey: 'project_id', sortKey: 'sk', indexes: [], holdsUserData: true },
};

export const tableEnvVar = (name: TableName) => `TABLE_${name.toUpperCase()}`;
