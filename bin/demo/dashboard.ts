/**
 * The demo's dashboard (docs/demo.md): one page of the insights the demo saved, each over its own
 * range, made through the admin API as a team would (POST …/dashboards).
 */

/** An admin API call of the demo (run.ts), answering the parsed body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed body of any route; the caller reads the fields it needs
export type DemoAdminCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>;

export const DEMO_DASHBOARD_NAME = 'Shop overview';

/** Creates the dashboard of these saved insights (in this order) in the project at `projectPath`; answers its ID. */
export async function saveDemoDashboard(admin: DemoAdminCall, projectPath: string, savedInsightIds: readonly string[]): Promise<string> {
  const created = await admin('POST', `${projectPath}/dashboards`, {
    name: DEMO_DASHBOARD_NAME,
    tiles: savedInsightIds.map((saved_insight_id) => ({ saved_insight_id })),
  });
  return created.json.id as string;
}
