/**
 * `npm run demo`'s steps (bin/demo.ts): over the HTTP API only, as a team would, it creates a project
 * and a key, sends the made-up shop's history (bin/demo/data.ts) in batches, creates and starts an
 * experiment, sends its users' exposures and purchases (bucketed from GET /v1/experiments/configs, as
 * a local-mode SDK does), asks for its results, and prints where to look. Each step prints a line;
 * the events print their progress. A 429 waits its Retry-After and sends the same batch again (safe:
 * Tally drops the duplicates of a batch it stored); a 5xx to an events batch or a read is tried again
 * a few times (not to an admin write, which may have happened); any other answer stops the run with
 * the API's own message.
 */
import { variantFor } from '../../lambdas/domain/bucketing';
import { experimentEvents, shopHistory, type DemoEvent } from './data';
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
}

/** The API refused a request for a reason a retry cannot fix: its status and message. */
export class DemoFailed extends Error {}

const EXPERIMENT = { name: 'Checkout button', goal_event: 'purchase', variants: ['control', 'treatment'] };
const METRICS = [
  { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'revenue', role: 'secondary' },
  { name: 'Checkout errors', event: 'checkout_error', kind: 'count', role: 'guardrail', direction: 'increase' },
];
const MAX_RATE_LIMIT_WAITS = 100;
const SERVER_ERROR_RETRIES = 4;

export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const print = options.print ?? ((line: string) => console.log(line));
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const nowMs = options.nowMs ?? Date.now();
  const batchSize = options.batchSize ?? 500;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let requests = 0;
  let rateLimited = 0;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed body of any route; each step reads the fields it needs
  const call = async (method: string, path: string, auth: string, body?: unknown): Promise<{ status: number; json: any }> => {
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
  const admin = (method: string, path: string, body?: unknown) => call(method, path, options.adminToken, body);

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
    print(
      `Key ${created.key_prefix}… created (enterprise plan, ${created.rate_limit_per_minute.toLocaleString('en-US')} requests a minute); revoke it on the Keys page when done`,
    );
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
        print(`  ${what}: ${sent.toLocaleString('en-US')} of ${events.length.toLocaleString('en-US')} events sent (${percent} %)`);
      }
    }
  };

  const history = shopHistory({ users: options.users, days: options.days, nowMs, seed: options.seed });
  print(`Sending ${options.users.toLocaleString('en-US')} visitors' history over ${options.days} days (${history.length.toLocaleString('en-US')} events)`);
  await send(history, 'history');

  const experiments = `${project}/experiments`;
  const experiment = (await admin('POST', experiments, { ...EXPERIMENT, metrics: METRICS })).json;
  const startedAt = Date.parse((await admin('POST', `${experiments}/${experiment.id}/start`)).json.started_at as string);
  print(`Experiment "${experiment.name}" created and started: ${experiment.id}`);
  // As a local-mode SDK does: the running experiments' variants, then bucketing on the device.
  const configs = (await call('GET', '/v1/experiments/configs', key)).json as { experiments: Array<{ id: string; name: string; variants: string[] }> };
  const config = configs.experiments.find((e) => e.id === experiment.id);
  if (!config) throw new DemoFailed(`GET /v1/experiments/configs does not list the experiment ${experiment.id} just started`);
  const users = Array.from({ length: options.experimentUsers }, (_, i) => {
    const user_id = `demo-exp-${options.seed}-${i + 1}`;
    return { user_id, variant: variantFor(config.id, user_id, config.variants) };
  });
  const trial = experimentEvents(config.name, users, EXPERIMENT.variants, startedAt + 1, options.seed);
  print(`Sending ${users.length.toLocaleString('en-US')} experiment users' exposures and purchases (${trial.length.toLocaleString('en-US')} events)`);
  await send(trial, 'experiment');

  const variants: DemoSummary['variants'] = {};
  for (const v of EXPERIMENT.variants) variants[v] = { users: 0, purchases: 0 };
  for (const u of users) variants[u.variant]!.users++;
  const variantOf = new Map(users.map((u) => [u.user_id, u.variant]));
  for (const e of trial) if (e.name === 'purchase') variants[variantOf.get(e.user_id)!]!.purchases++;

  // The last events are a moment after the start: the results count events up to their own time.
  const lastAt = Math.max(...trial.map((e) => Date.parse(e.timestamp)));
  if (Date.now() <= lastAt) await sleep(lastAt - Date.now() + 1);
  const refreshed = await admin('POST', `${experiments}/${experiment.id}/results/refresh`);
  print(
    refreshed.status === 200
      ? 'Results computed'
      : 'Results are being computed (the scheduled job finishes them; on AWS events reach the results after Firehose delivers them, up to about 5 minutes)',
  );

  const saved = (await admin('GET', `${project}/saved-insights`)).json.saved_insights as Array<{ id: string }>;
  const dashboardId = await saveDemoDashboard(
    admin,
    project,
    saved.map((s) => s.id),
  );
  print(`Dashboard "Shop overview" created with ${saved.length} saved ${saved.length === 1 ? 'insight' : 'insights'}: ${dashboardId}`);

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const dashboard = options.dashboardUrl.endsWith('/') ? options.dashboardUrl : `${options.dashboardUrl}/`;
  const pagePath = (...parts: string[]) => `${dashboard}#/projects/${encodeURIComponent(projectId!)}/${parts.join('/')}`;
  print(
    [
      `Done in ${seconds} s: ${(history.length + trial.length).toLocaleString('en-US')} events in ${requests.toLocaleString('en-US')} requests${rateLimited ? ` (${rateLimited} waited out a 429)` : ''}.`,
      `  ${Object.entries(variants)
        .map(([v, c]) => `${v}: ${c.purchases} of ${c.users} bought`)
        .join('; ')}`,
      'Open in the dashboard:',
      `  Trends:     ${pagePath('insights', 'trends')}`,
      `  Funnels:    ${pagePath('insights', 'funnels')}`,
      `  Retention:  ${pagePath('insights', 'retention')}`,
      `  People:     ${pagePath('users')}`,
      `  Results:    ${pagePath('experiments', experiment.id, 'results')}`,
      `  Dashboard:  ${pagePath('dashboards', dashboardId)}`,
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
  };
}
