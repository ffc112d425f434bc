/**
 * `npm run demo`'s steps (bin/demo.ts): over the HTTP API only, as a team would, it creates a project
 * and a key, sends the made-up shop's history (bin/demo/data.ts) in batches, creates an experiment and
 * starts it on the history's first day (a backdated start), sends its users' exposures and purchases
 * spread over the days since (bucketed from GET /v1/experiments/configs, as a local-mode SDK does), asks
 * for its results, saves a trend, a funnel and a retention table (bin/demo/insights.ts), and prints the
 * links that open them filled in. Every number printed has thousands separators. Each step prints a line;
 * the events print their progress. A 429 waits its Retry-After and sends the same batch again (safe:
 * Tally drops the duplicates of a batch it stored); a 5xx to an events batch or a read is tried again
 * a few times (not to an admin write, which may have happened); any other answer stops the run with
 * the API's own message.
 */
import { variantFor } from '../../lambdas/domain/bucketing';
import { experimentEvents, shopHistory, type DemoEvent } from './data';
import { historyRange, insightLink, saveDemoInsights, type AdminCall, type SavedDemoInsight } from './insights';
import { saveDemoDashboard } from './dashboard';

export interface DemoOptions {
  /** The API's base URL (the ApiUrl output, or http://127.0.0.1:3000). */
  baseUrl: string;
  adminToken: string;
  /** Where the dashboard is, for the links printed at the end. */
  dashboardUrl: string;
  projectName: string;
  users: number;
  days: number;
  experimentUsers: number;
  seed: number;
  /** Events per request (at most 1,000, the API's batch limit). */
  batchSize?: number;
  /** An existing key to send with (else one is created: enterprise plan, 10,000 requests a minute). */
  key?: string;
  projectId?: string;
  nowMs?: number;
  print?: (line: string) => void;
  /** How it waits (a test's clock). @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

export interface DemoSummary {
  projectId: string;
  experimentId: string;
  /** The dashboard of the project's saved insights. */
  dashboardId: string;
  historyEvents: number;
  experimentEvents: number;
  requests: number;
  /** How many 429 answers were waited out. */
  rateLimited: number;
  variants: Record<string, { users: number; purchases: number }>;
  /** The insights saved (a trend, a funnel, a retention table), with their IDs, in order. */
  savedInsights: SavedDemoInsight[];
}

/** The API refused a request for a reason a retry cannot fix: its status and message. */
export class DemoFailed extends Error {}

const EXPERIMENT = { name: 'Checkout button', goal_event: 'purchase', variants: ['control', 'treatment'] };
const METRICS = [
  { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'revenue', role: 'secondary' },
  { name: 'Checkout errors', event: 'checkout_error', kind: 'count', role: 'guardrail', direction: 'increase' },
];
const MAX_RATE_LIMIT_WAITS = 100;
const DAY_MS = 86_400_000;
/** Every number the demo prints: thousands separated, as the dashboard shows them. */
const n = (value: number) => new Intl.NumberFormat('en-US').format(value);
const SERVER_ERROR_RETRIES = 4;

export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const print = options.print ?? ((line: string) => console.log(line));
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const nowMs = options.nowMs ?? Date.now();
  const batchSize = options.batchSize ?? 500;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let requests = 0;
  let rateLimited = 0;

  const call = async (method: string, path: string, auth: string, body?: unknown): ReturnType<AdminCall> => {
    for (let serverErrors = 0; ;) {
      requests++;
      const res = await fetch(new URL(path.replace(/^\//, ''), base), {
        method,
        headers: { Authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined; // not JSON (a proxy's error page): the message below quotes the text
      }
      if (res.status === 429 && rateLimited < MAX_RATE_LIMIT_WAITS) {
        rateLimited++;
        const seconds = Math.max(1, Number(res.headers.get('retry-after')) || 1);
        await sleep(seconds * 1000);
        continue;
      }
      // Only what is safe to repeat: reads, and events (Tally drops the copies of a batch it stored).
      if (res.status >= 500 && serverErrors < SERVER_ERROR_RETRIES && (method === 'GET' || path === '/v1/events')) {
        await sleep(500 * 2 ** serverErrors++);
        continue;
      }
      if (res.status >= 400) {
        const message = (json as { error?: unknown } | undefined)?.error ?? text.slice(0, 300);
        throw new DemoFailed(`${method} ${path} answered ${res.status}: ${typeof message === 'string' ? message : JSON.stringify(message)}`);
      }
      return { status: res.status, json };
    }
  };
  const admin: AdminCall = (method, path, body) => call(method, path, options.adminToken, body);

  const started = Date.now();
  let projectId = options.projectId;
  if (!projectId) {
    projectId = (await admin('POST', '/admin/v1/projects', { name: options.projectName })).json.id as string;
    print(`Project "${options.projectName}" created: ${projectId}`);
  }
  const project = `/admin/v1/projects/${encodeURIComponent(projectId)}`;
  let key = options.key;
  if (!key) {
    const created = (await admin('POST', `${project}/keys`, { plan: 'enterprise' })).json;
    key = created.key as string;
    print(`Key ${created.key_prefix}… created (enterprise plan, ${n(created.rate_limit_per_minute)} requests a minute); revoke it on the Keys page when done`);
  }

  const send = async (events: DemoEvent[], what: string) => {
    let sent = 0;
    let shown = 0;
    for (let i = 0; i < events.length; i += batchSize) {
      const batch = events.slice(i, i + batchSize);
      await call('POST', '/v1/events', key!, { events: batch });
      sent += batch.length;
      const percent = Math.floor((sent / events.length) * 100);
      if (percent >= shown + 25 || sent === events.length) {
        shown = percent;
        print(`  ${what}: ${n(sent)} of ${n(events.length)} events sent (${n(percent)} %)`);
      }
    }
  };

  const history = shopHistory({ users: options.users, days: options.days, nowMs, seed: options.seed });
  print(`Sending ${n(options.users)} visitors' history over ${n(options.days)} days (${n(history.length)} events)`);
  await send(history, 'history');

  const experiments = `${project}/experiments`;
  const experiment = (await admin('POST', experiments, { ...EXPERIMENT, metrics: METRICS })).json;
  // Started on the history's first day (at most 90 days back, as the API allows), so enrollment spreads over the days since.
  const firstDayMs = (Math.floor(nowMs / DAY_MS) - (options.days - 1)) * DAY_MS;
  const startedAt = Date.parse(
    (await admin('POST', `${experiments}/${experiment.id}/start`, { started_at: new Date(firstDayMs).toISOString() })).json.started_at as string,
  );
  print(`Experiment "${experiment.name}" created and started on ${new Date(startedAt).toISOString().slice(0, 10)}: ${experiment.id}`);
  // As a local-mode SDK does: the running experiments' variants, then bucketing on the device.
  const configs = (await call('GET', '/v1/experiments/configs', key)).json as { experiments: Array<{ id: string; name: string; variants: string[] }> };
  const config = configs.experiments.find((e) => e.id === experiment.id);
  if (!config) throw new DemoFailed(`GET /v1/experiments/configs does not list the experiment ${experiment.id} just started`);
  const users = Array.from({ length: options.experimentUsers }, (_, i) => {
    const user_id = `demo-exp-${options.seed}-${i + 1}`;
    return { user_id, variant: variantFor(config.id, user_id, config.variants) };
  });
  const trial = experimentEvents(config.name, users, EXPERIMENT.variants, { startMs: startedAt, endMs: nowMs }, options.seed);
  print(`Sending ${n(users.length)} experiment users' exposures and purchases over ${n(options.days)} days (${n(trial.length)} events)`);
  await send(trial, 'experiment');

  const variants: DemoSummary['variants'] = {};
  for (const v of EXPERIMENT.variants) variants[v] = { users: 0, purchases: 0 };
  for (const u of users) variants[u.variant]!.users++;
  const variantOf = new Map(users.map((u) => [u.user_id, u.variant]));
  for (const e of trial) if (e.name === 'purchase') variants[variantOf.get(e.user_id)!]!.purchases++;

  // The results count events up to their own time: the last ones must be in the past.
  const lastAt = Math.max(...trial.map((e) => Date.parse(e.timestamp)));
  if (Date.now() <= lastAt) await sleep(lastAt - Date.now() + 1);
  const refreshed = await admin('POST', `${experiments}/${experiment.id}/results/refresh`);
  print(
    refreshed.status === 200
      ? 'Results computed'
      : 'Results are being computed (the scheduled job finishes them; on AWS events reach the results after Firehose delivers them, up to about 5 minutes)',
  );

  const savedInsights = await saveDemoInsights(admin, projectId, historyRange(nowMs, options.days));
  print(`Saved ${n(savedInsights.length)} insights: ${savedInsights.map((i) => `"${i.name}"`).join(', ')}`);
  const dashboardId = await saveDemoDashboard(
    admin,
    project,
    savedInsights.map((i) => i.id),
  );
  print(`Dashboard "Shop overview" created with the ${n(savedInsights.length)} saved insights: ${dashboardId}`);

  const seconds = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format((Date.now() - started) / 1000);
  const dashboard = options.dashboardUrl.endsWith('/') ? options.dashboardUrl : `${options.dashboardUrl}/`;
  const pagePath = (...parts: string[]) => `${dashboard}#/projects/${encodeURIComponent(projectId!)}/${parts.join('/')}`;
  const label = (text: string) => `  ${`${text}:`.padEnd(23)} `;
  print(
    [
      `Done in ${seconds} s: ${n(history.length + trial.length)} events in ${n(requests)} requests${rateLimited ? ` (${n(rateLimited)} waited out a 429)` : ''}.`,
      `  ${Object.entries(variants)
        .map(([v, c]) => `${v}: ${n(c.purchases)} of ${n(c.users)} bought`)
        .join('; ')}`,
      'Open in the dashboard:',
      ...savedInsights.map((i) => `${label(i.name)}${insightLink(dashboard, projectId!, i)}`),
      `${label('Saved insights')}${pagePath('insights')}`,
      `${label('People')}${pagePath('users')}`,
      `${label('Results')}${pagePath('experiments', experiment.id, 'results')}`,
      `${label('Dashboard')}${pagePath('dashboards', dashboardId)}`,
    ].join('\n'),
  );
  return {
    projectId,
    experimentId: experiment.id,
    dashboardId,
    historyEvents: history.length,
    experimentEvents: trial.length,
    requests,
    rateLimited,
    variants,
    savedInsights,
  };
}
