/**
 * Runs an insight definition (docs/api.md "Insights"): POST …/insights/<kind>, then, while the query
 * runs (202 on Athena), GET its poll_url every 2 s until it answers with a result.
 */
import type { ApiClient } from '../api';

interface InsightAnswer<R> {
  status: 'succeeded' | 'running';
  query_id: string;
  poll_url: string;
  result?: R;
  sql: string;
  data_through: string;
}

const POLL_MS = 2000;

export async function runInsight<R>(api: ApiClient, projectPath: string, kind: string, definition: unknown): Promise<InsightAnswer<R> & { result: R }> {
  let answer = await api.post<InsightAnswer<R>>(`/admin/v1${projectPath}/insights/${kind}`, definition);
  while (answer.status === 'running' || answer.result === undefined) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    answer = await api.get<InsightAnswer<R>>(answer.poll_url);
  }
  return answer as InsightAnswer<R> & { result: R };
}
