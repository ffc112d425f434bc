/** The deletions of people (docs/decisions/erasure.md): each request and its progress, step by step. */
import type { Deletion } from '../domain/deletion';
import type { IdLink } from '../domain/person-ids';
import type { StreamName } from '../domain/landing-hour';

export type { Deletion, IdLink };

export interface DeletionPage {
  deletions: Deletion[];
  /** Where the next page starts; absent on the last one. */
  next?: string;
}

export class InvalidDeletionCursor extends Error {}

export interface DeletionStore {
  /** Stores a new deletion (its ID is new). */
  create(deletion: Deletion): Promise<void>;
  get(projectId: string, id: string): Promise<Deletion | undefined>;
  /** A project's deletions, newest first. */
  list(projectId: string, limit: number, cursor?: string): Promise<DeletionPage>;
  /** Every deletion not done yet, or done and still sweeping late landing objects at `nowMs` (sweep_until), of every project, oldest first. */
  unfinished(nowMs: number): Promise<Deletion[]>;
  /** Replaces a deletion's progress whole. */
  save(deletion: Deletion): Promise<void>;
}

/**
 * The files holding a person's rows (landing objects, curated partitions, the results job's state,
 * query result files): locally the data directory (adapters/duckdb-compaction.ts). Every method is
 * idempotent: run again, it finds nothing more to remove and answers 0.
 */
export interface PersonFiles {
  /** The identity-stream rows (landing and curated) naming any of `ids`, as pointer rows. */
  linksOf(projectId: string, ids: readonly string[]): Promise<IdLink[]>;
  /**
   * Rewrites each landing object holding rows of `ids` of the project without them (received through
   * `through`); the rows removed. With `writtenAfter` (ISO 8601), only objects written after it.
   */
  eraseLanding(stream: StreamName, projectId: string, ids: readonly string[], through: string, writtenAfter?: string): Promise<number>;
  /** The curated partitions of the project holding rows of `ids` received through `through`, with how many (`rows`). */
  curatedPartitionsOf(
    stream: StreamName,
    projectId: string,
    ids: readonly string[],
    through: string,
  ): Promise<Array<{ projectId: string; dt: string; rows: number }>>;
  /** Writes `generation` of each partition: its current rows but those of `ids` received through `through`. */
  writeGenerationWithout(
    stream: StreamName,
    batch: ReadonlyArray<{ projectId: string; dt: string }>,
    ids: readonly string[],
    through: string,
    generation: string,
  ): Promise<void>;
  /** Deletes the results job's incremental state and base of the project (rebuilt from raw at its next run); the files removed. */
  dropResultsState(projectId: string): Promise<number>;
  /** Deletes the insight engine's result files of these executions; the files removed. */
  dropQueryResults(executionIds: readonly string[]): Promise<number>;
}

/** What a deletion removes from the DynamoDB tables holding a person's IDs (the Dynamo stores implement these). */
export interface PersonRecords {
  identities: {
    /** The items of these IDs and of every ID pointing at one of them, as pointer rows. */
    linksOf(projectId: string, ids: readonly string[]): Promise<IdLink[]>;
    /** Deletes the items of these IDs (profile and first event included); how many there were. */
    forget(projectId: string, ids: readonly string[]): Promise<number>;
    /** Suppresses these IDs (a deletion with suppress; domain/suppression.ts): markers that forget leaves. */
    suppress(projectId: string, ids: readonly string[], atMs: number): Promise<void>;
    /** The profiles (email, name) of these IDs that have one (an export). */
    profilesOf(projectId: string, ids: readonly string[]): Promise<Array<{ id: string; email?: string; name?: string }>>;
  };
  assignments: {
    /** The assignments of these IDs in these experiments (an export). */
    of(
      projectId: string,
      experimentIds: readonly string[],
      userIds: readonly string[],
    ): Promise<Array<{ user_id: string; experiment_id: string; variant: string }>>;
    /** Deletes the assignments of these IDs in these experiments; how many there were. */
    forget(projectId: string, experimentIds: readonly string[], userIds: readonly string[]): Promise<number>;
  };
  experiments: { list(projectId: string): Promise<Array<{ id: string }>> };
  results: {
    /** Deletes an experiment's stored results, so the results job computes them again; whether there were any. */
    forget(projectId: string, experimentId: string): Promise<boolean>;
  };
  insightQueries: {
    /** Deletes every stored insight query of the project; the execution IDs they named. */
    forgetProject(projectId: string): Promise<string[]>;
  };
}
