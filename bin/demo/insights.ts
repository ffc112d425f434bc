/**
 * The demo's saved insights (`npm run demo`): a trend, a funnel and a retention table over the shop's
 * history, saved through the admin API as a team would save them, so the Insights page lists them and
 * their links open the pages filled in. saveDemoInsights returns what it saved (IDs first): what a
 * later step, such as a dashboard of these insights, takes.
 */

/** One admin API call of the demo (bin/demo/run.ts): its status and parsed body, or a DemoFailed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed body of any route; each step reads the fields it needs
export type AdminCall = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: any }>;

export interface SavedDemoInsight {
  id: string;
  name: string;
  kind: 'trends' | 'funnels' | 'retention';
  /** The definition as the API stored it (its defaults filled in): what the link opens. */
  definition: unknown;
}

/** The UTC days the history covers, `days` days up to the day of `nowMs`. */
export function historyRange(nowMs: number, days: number): { date_from: string; date_to: string } {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { date_from: day(nowMs - (days - 1) * 86_400_000), date_to: day(nowMs) };
}

/** What the demo saves: the shop's daily activity, its purchase funnel and whether visitors come back. */
export function demoInsights(range: { date_from: string; date_to: string }): Array<Omit<SavedDemoInsight, 'id'>> {
  return [
    {
      name: 'Daily shoppers',
      kind: 'trends',
      definition: {
        series: [
          { event: 'page_view', measure: 'users' },
          { event: 'purchase', measure: 'users' },
        ],
        interval: 'day',
        compare: false,
        ...range,
      },
    },
    {
      name: 'View to purchase',
      kind: 'funnels',
      definition: { steps: [{ event: 'product_view' }, { event: 'add_to_cart' }, { event: 'purchase' }], conversion_window_days: 7, ...range },
    },
    { name: 'Visitors coming back', kind: 'retention', definition: { start_event: 'page_view', return_event: 'page_view', interval: 'day', ...range } },
  ];
}

/**
 * The dashboard link that opens a saved insight filled in and runs it: its kind's page with the
 * definition in the hash, as the Insights page links its saved insights (dashboard/src/insights/
 * saved-insights.ts savedInsightHref, over hash-state.ts insightHref).
 */
export function insightLink(dashboardUrl: string, projectId: string, insight: Pick<SavedDemoInsight, 'id' | 'kind' | 'definition'>): string {
  const base = dashboardUrl.endsWith('/') ? dashboardUrl : `${dashboardUrl}/`;
  // d: the definition, which the page fills in and runs; s: the saved insight, whose name it shows (with Rename and Update).
  return `${base}#/projects/${encodeURIComponent(projectId)}/insights/${insight.kind}?${new URLSearchParams({ d: JSON.stringify(insight.definition), s: insight.id })}`;
}

/** Saves the demo's insights in the project, in order; returns them with their IDs. */
export async function saveDemoInsights(admin: AdminCall, projectId: string, range: { date_from: string; date_to: string }): Promise<SavedDemoInsight[]> {
  const path = `/admin/v1/projects/${encodeURIComponent(projectId)}/saved-insights`;
  const saved: SavedDemoInsight[] = [];
  for (const insight of demoInsights(range)) {
    const { id, name, kind, definition } = (await admin('POST', path, insight)).json as SavedDemoInsight;
    saved.push({ id, name, kind, definition });
  }
  return saved;
}
