/** The dashboards of each project (domain/insights/dashboard.ts). */
import type { Dashboard } from '../domain/insights/dashboard';

export type { Dashboard };

export interface DashboardStore {
  /**
   * Stores a new dashboard if its project holds fewer than `limit`: false (nothing stored) when it
   * holds that many. Atomic: parallel creates never leave more than `limit`.
   */
  create(dashboard: Dashboard, limit: number): Promise<boolean>;
  get(projectId: string, id: string): Promise<Dashboard | undefined>;
  /** The project's dashboards, the most recently updated first. */
  list(projectId: string): Promise<Dashboard[]>;
  /** Replaces an existing dashboard: false (nothing stored) when it no longer exists. */
  put(dashboard: Dashboard): Promise<boolean>;
  /** false when there was none. Gives its place under the limit back. */
  delete(projectId: string, id: string): Promise<boolean>;
}
