/** Saved insights (docs/api.md "Saved insights"): the API's shape and each one's dashboard link. */
import { pathOf } from '../router';
import { insightHref } from './hash-state';

export interface SavedInsight {
  id: string;
  name: string;
  kind: string;
  definition: unknown;
  created_at: string;
  updated_at: string;
  /** Why it cannot run under today's rules (e.g. a date outside the bounds), as the API says; null when it runs. */
  problem?: string | null;
}

export const savedInsightsPath = (projectId: string) => `/admin/v1/projects/${encodeURIComponent(projectId)}/saved-insights`;

/** The hash link that opens (and runs) a saved insight, naming it (its name shown, update in place): shareable like any insight page's address. */
export function savedInsightHref(projectId: string, insight: Pick<SavedInsight, 'id' | 'kind' | 'definition'>): string {
  return insightHref(pathOf('projects', projectId, 'insights', insight.kind), { definition: insight.definition, savedId: insight.id });
}
