/** A saved insight as an older version stored it: straight into the store, past today's checks. */
import type { TestStack } from './local';

export const FAR_FUTURE_TRENDS = {
  series: [{ event: 'signup', measure: 'events' }],
  interval: 'day',
  date_from: '9999-12-01',
  date_to: '9999-12-31',
  compare: true,
};

export async function storeOldSavedInsight(stack: TestStack, projectId: string, id: string, definition: unknown): Promise<void> {
  const at = '2026-01-01T00:00:00.000Z';
  await stack.deps.savedInsights.create({ id, project_id: projectId, name: 'Far future', kind: 'trends', definition, created_at: at, updated_at: at }, 200);
}
