/** Records a project keeps under a count limit (saved insights, dashboards): their storage (store/slotted-records.ts). */
export interface ProjectRecordStore<T> {
  /**
   * Stores a new record if its project holds fewer than `limit`: false (nothing stored) when it holds
   * that many. Atomic: parallel creates never leave more than `limit`.
   */
  create(record: T, limit: number): Promise<boolean>;
  get(projectId: string, id: string): Promise<T | undefined>;
  /** The project's records, the most recently updated first. */
  list(projectId: string): Promise<T[]>;
  /** Replaces an existing record: false (nothing stored) when it no longer exists. */
  put(record: T): Promise<boolean>;
  /** false when there was none. Gives its place under the limit back. */
  delete(projectId: string, id: string): Promise<boolean>;
}
