/** The saved insights of each project (domain/insights/saved-insight.ts). */
import type { SavedInsight } from '../domain/insights/saved-insight';

export type { SavedInsight };

export interface SavedInsightStore {
  create(insight: SavedInsight): Promise<void>;
  get(projectId: string, id: string): Promise<SavedInsight | undefined>;
  /** The project's saved insights, the most recently updated first. */
  list(projectId: string): Promise<SavedInsight[]>;
  put(insight: SavedInsight): Promise<void>;
  /** false when there was none. */
  delete(projectId: string, id: string): Promise<boolean>;
}
