/**
 * The ports: the interfaces handlers and services depend on, with their types and the errors a caller
 * must catch, one file per port. Implementations live in store/ (storage: DynamoDB on AWS and dynalite
 * locally; Firehose on AWS, the local Firehose endpoint writing files) and adapters/ (everything else).
 */
export type * from './project-store';
export type * from './api-key-store';
export type * from './rate-limit-registry';
export type * from './event-ledger';
export * from './recent-events';
export type * from './identity-store';
export type * from './assignment-store';
export type * from './results-store';
export type * from './results-query';
export type * from './analytics-views';
export * from './raw-stream';
export * from './experiment-store';
export type * from './recent-users';
export type * from './planning-baseline';
export type * from './insights';
export type * from './saved-insight-store';
export type * from './dashboard-store';
export type * from './project-record-store';
export type * from './sign-in-verifier';
export * from './audit-log';
export * from './compaction-store';
export * from './retention-store';
export * from './deletion-store';
export * from './export-store';
