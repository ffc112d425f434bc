/** The saved insights of each project (domain/insights/saved-insight.ts). */
import type { SavedInsight } from '../domain/insights/saved-insight';

export type { SavedInsight };

export interface SavedInsightStore {
  /**
   * Stores a new insight if its project holds fewer than `limit`: false (nothing stored) when it holds
   * that many. Atomic: parallel creates never leave more than `limit`.
   */
  create(insight: SavedInsight, limit: number): Promise<boolean>;
  get(projectId: string, id: string): Promise<SavedInsight | undefined>;
  /** The project's saved insights, the most recently updated first. */
  list(projectId: string): Promise<SavedInsight[]>;
  /** Replaces an existing insight: false (nothing stored) when it no longer exists. */
  put(insight: SavedInsight): Promise<boolean>;
  /** false when there was none. Gives its place under the limit back. */
  delete(projectId: string, id: string): Promise<boolean>;
}
