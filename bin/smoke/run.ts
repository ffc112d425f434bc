/**
 * The smoke test's steps: a deployed stack (or `npm start`) checked end to end over HTTP, the way a
 * client and an operator would use it. Each step prints one PASS, FAIL or SKIP line; a step whose
 * inputs an earlier step failed to produce is skipped, not failed again. Nothing secret is printed:
 * keys appear by their prefix only, the admin token never.
 */
import { randomUUID } from 'node:crypto';
import { diagnose, jobLogGroupHint } from './diagnosis';

export interface SmokeOptions {
  /** The API's base URL ({base_url}: the ApiUrl output, or http://127.0.0.1:3000). */
  baseUrl: string;
  adminToken: string;
  /**
   * Looks for the smoke events in the raw stream (Athena on AWS, the NDJSON files locally): resolves
   * how many of the named events of the project were found. Undefined skips that step.
   */
  rawEvents?: RawEventsCheck;
  /** How long to wait for the events in the raw stream (Firehose buffers up to 5 minutes). */
  rawTimeoutMs?: number;
  /** Pause between raw-stream polls. */
  rawPollMs?: number;
  /**
   * How long to wait for the smoke person's deletion to be done: the compaction job carries deletions
   * out after each run, every 15 minutes on AWS, and a run may take its whole 15-minute timeout.
   * @default DELETION_TIMEOUT_MS
   */
  deletionTimeoutMs?: number;
  /** The CloudFormation stack, for the log-group command of FAIL lines. @default 'Tally' */
  stackName?: string;
  /** The DashboardUrl output: checked to answer with its Content-Security-Policy. Undefined skips that step. */
  dashboardUrl?: string;
  /** Where the lines go. @default console.log */
  print?: (line: string) => void;
}

export interface RawEventsCheck {
  /** What it reads, for the step's name ("Athena workgroup x", "local files under y"). */
  describe: string;
  count(projectId: string, eventName: string, day: string): Promise<number>;
  /** The objects written under errors/ since `since`, and how many of their records hold `run` (the run's ID is in every smoke event). */
  errors(run: string, since: Date): Promise<ErrorsFound>;
  /** The redrive command for this deployment or data directory, for the FAIL line. */
  redrive: string;
  /** How many events of the project on `day` name `userId` (as `user_id` or `sent_user_id`), through the same engine as `count`. */
  countPerson?(projectId: string, userId: string, day: string): Promise<number>;
  /** The compaction job's last run as its state says (each stream's compacted hour); throws when closed landing hours wait uncompacted. */
  compaction?(): Promise<string>;
}

export interface ErrorsFound {
  /** Objects written under errors/ since the run started. */
  objects: number;
  /** Their error records whose record holds the run's ID. */
  ofRun: number;
  /** Where errors/ is ("s3://bucket/errors/", "<dir>/errors/"). */
  where: string;
}

/** The FAIL line's explanation when Firehose wrote records under errors/ during the run. */
export function undeliveredMessage(found: ErrorsFound, redrive: string): string {
  const what =
    found.ofRun > 0
      ? `${found.ofRun} of this run's records are under ${found.where}`
      : `${found.objects} object(s) were written under ${found.where} during the run (none of this run's records)`;
  return (
    `${what}: Firehose accepted them (the client got its 204) but could not deliver them to their partition, so no table or listing has them. ` +
    `The alarm Firehose-DeliveryErrorsWritten fires for it. Read their errorCode and errorMessage, fix the cause, then re-send them with \`${redrive}\` ` +
    `(docs/deploy.md, "Undelivered records")`
  );
}

export type Outcome = 'pass' | 'fail' | 'skip';
export interface StepResult {
  name: string;
  outcome: Outcome;
  detail: string;
}

class Skip extends Error {}

const KEY_PROPAGATION_MS = 30_000;

/**
 * The deletion step's default wait: a compaction run may be under way when the request arrives and take
 * its whole 15 minutes, the next starts up to 15 minutes later and carries the deletion out in up to 15
 * more; 45 minutes, and the FAIL line then names the alarm and the log.
 */
export const DELETION_TIMEOUT_MS = 45 * 60_000;

export const DELETION_STEP = 'POST …/deletions deletes the smoke person: done with a receipt counting their events, then 0 of their events in the raw stream';

export const BURST_STEP = 'a burst over a free key’s limit gets 429 with Retry-After, unless throttling lets it through (best-effort)';

/** API Gateway's throttling documentation: usage-plan throttles are targets, not guaranteed ceilings. */
export const THROTTLING_DOCS = 'https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html';

/** The burst step's report when no request of the burst was answered 429. */
export function burstNotThrottled(sent: number, limit: number): string {
  return (
    `${sent} requests over a limit of ${limit} per minute, none answered 429: allowed, API Gateway applies usage-plan ` +
    `throttling "on a best-effort basis" ("Throttle requests to your REST APIs", ${THROTTLING_DOCS}); the 429 itself is checked against npm start`
  );
}

/** Thrown by a step when its check does not hold; the message says what was expected and seen. */
class Failed extends Error {}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Failed(message);
}

interface Reply {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed body of any route; each step reads the fields it checks
  json: any;
}

export async function runSmoke(options: SmokeOptions): Promise<StepResult[]> {
  const print = options.print ?? ((line: string) => console.log(line));
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const results: StepResult[] = [];
  const started = Date.now();
  const run = `smoke-${randomUUID().slice(0, 8)}`;
  const eventName = 'tally_smoke_test';
  const eventTime = new Date();
  const day = eventTime.toISOString().slice(0, 10);
  /** errors/ objects from this moment on are the run's concern (a second's margin for file and S3 clocks). */
  const runStarted = new Date(started - 1000);

  const call = async (method: string, path: string, init: { key?: string; admin?: boolean; body?: unknown } = {}): Promise<Reply> => {
    const headers: Record<string, string> = {};
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    if (init.admin) headers.Authorization = `Bearer ${options.adminToken}`;
    if (init.key) headers.Authorization = `Bearer ${init.key}`;
    const res = await fetch(new URL(path.replace(/^\//, ''), base), {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { method, path, status: res.status, headers: res.headers, text, json };
  };
  const stackName = options.stackName ?? 'Tally';
  /** Request ID, log group and, for API Gateway's own 500, the throttling advice (bin/smoke/diagnosis.ts). */
  const why = (reply: Reply) => ` [${diagnose(reply, reply.method, reply.path, stackName)}]`;
  const expectStatus = (reply: Reply, status: number, what: string) =>
    check(reply.status === status, `${what}: expected ${status}, got ${reply.status} ${reply.text.slice(0, 200)}${why(reply)}`);

  const step = async (name: string, fn: () => Promise<string>) => {
    const t0 = Date.now();
    let result: StepResult;
    try {
      result = { name, outcome: 'pass', detail: await fn() };
    } catch (err) {
      const outcome: Outcome = err instanceof Skip ? 'skip' : 'fail';
      result = { name, outcome, detail: err instanceof Error ? err.message : String(err) };
    }
    results.push(result);
    const seconds = ((Date.now() - t0) / 1000).toFixed(1);
    print(`  ${result.outcome.toUpperCase().padEnd(4)}  ${name}${result.detail ? ` (${result.detail})` : ''}  ${seconds} s`);
  };
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Skip(`needs ${what} from an earlier step`);
    return value;
  };

  print(`Tally smoke test against ${base} (run ${run})`);
  let projectId: string | undefined;
  let key: string | undefined;
  let keyId: string | undefined;
  let burstKeyId: string | undefined;
  let experiment: { id: string; name: string; variants: string[] } | undefined;

  await step('create a project', async () => {
    const r = await call('POST', '/admin/v1/projects', { admin: true, body: { name: `Tally smoke test ${run}` } });
    expectStatus(r, 201, 'POST /admin/v1/projects');
    projectId = r.json.id;
    return `id ${projectId}`;
  });

  await step('create an API key', async () => {
    const r = await call('POST', `/admin/v1/projects/${need(projectId, 'a project')}/keys`, { admin: true, body: {} });
    expectStatus(r, 201, 'POST …/keys');
    key = r.json.key;
    keyId = r.json.id;
    return `${r.json.key_prefix}…, ${r.json.plan} plan`;
  });

  /**
   * A new key's API Gateway API key may take a moment to be usable (the admin API creates it at run
   * time): its first request is repeated on 401 for up to KEY_PROPAGATION_MS before that counts.
   */
  const firstUse = async (send: () => Promise<Reply>): Promise<{ reply: Reply; waitedMs: number }> => {
    const t0 = Date.now();
    for (;;) {
      const reply = await send();
      if (reply.status !== 401 || Date.now() - t0 >= KEY_PROPAGATION_MS) return { reply, waitedMs: Date.now() - t0 };
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  };

  const event = (userId: string) => ({ name: eventName, user_id: userId, timestamp: eventTime.toISOString(), properties: { run } });
  // A profile for the first smoke user, found later by email and by name (no ID contains either text).
  const profile = { email: `qa+${run}@example.com`, name: `Smoke User ${run}` };
  const identify = (userId: string) => ({ name: '$identify', user_id: userId, timestamp: eventTime.toISOString(), properties: profile });

  await step('POST /v1/events answers 204', async () => {
    const { reply: r, waitedMs } = await firstUse(() =>
      call('POST', '/v1/events', { key: need(key, 'a key'), body: { events: [event(`${run}-v1`), identify(`${run}-v1`)] } }),
    );
    expectStatus(r, 204, 'POST /v1/events');
    return waitedMs > 0 ? `the new key was usable after ${Math.round(waitedMs / 1000)} s` : '';
  });

  await step('POST /api/events answers 200 {"success":true,"events_received":1}', async () => {
    const r = await call('POST', '/api/events', { key: need(key, 'a key'), body: { events: [event(`${run}-api`)] } });
    expectStatus(r, 200, 'POST /api/events');
    check(r.json?.success === true && r.json?.events_received === 1, `unexpected body ${r.text.slice(0, 200)}`);
    return '';
  });

  const unauthorized = async (path: string, expected: unknown) => {
    for (const keyValue of [undefined, 'tally_0000000000000000000000000000000000000000000']) {
      const r = await call('POST', path, { key: keyValue, body: { events: [event(`${run}-nokey`)] } });
      expectStatus(r, 401, `${path} ${keyValue ? 'with an unknown key' : 'without a key'}`);
      check(JSON.stringify(r.json) === JSON.stringify(expected), `${path}: expected ${JSON.stringify(expected)}, got ${r.text.slice(0, 200)}`);
    }
    return 'without a key and with an unknown one';
  };
  await step('POST /v1/events without a valid key answers 401 {"error":"Invalid or missing API key"}', () =>
    unauthorized('/v1/events', { error: 'Invalid or missing API key' }),
  );
  await step('POST /api/events without a valid key answers 401 {"success":false,"error":"Invalid or missing API key"}', () =>
    unauthorized('/api/events', { success: false, error: 'Invalid or missing API key' }),
  );

  await step(BURST_STEP, async () => {
    const created = await call('POST', `/admin/v1/projects/${need(projectId, 'a project')}/keys`, { admin: true, body: { plan: 'free' } });
    expectStatus(created, 201, 'POST …/keys (free)');
    burstKeyId = created.json.id;
    const limit: number = created.json.rate_limit_per_minute;
    // The bucket holds `limit` requests; twice as many, 20 at a time, must run into it.
    const first = await firstUse(() => call('POST', '/v1/events', { key: created.json.key, body: { events: [] } }));
    expectStatus(first.reply, 204, 'the burst key’s first request');
    let limited: Reply | undefined;
    let sent = 1;
    while (!limited && sent < 2 * limit) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => call('POST', '/v1/events', { key: created.json.key, body: { events: [] } })));
      sent += batch.length;
      limited = batch.find((r) => r.status === 429);
      const odd = batch.find((r) => r.status !== 204 && r.status !== 429);
      check(!odd, `unexpected ${odd?.status} ${odd?.text.slice(0, 200)} during ${batch.length} parallel requests${odd ? why(odd) : ''}`);
    }
    // API Gateway's usage-plan throttling is best-effort: it may let the whole burst through. Allowed,
    // and said so; a 429 it does send must be right, and a 5xx fails above.
    if (!limited) return burstNotThrottled(sent, limit);
    const retryAfter = Number(limited.headers.get('retry-after'));
    check(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After is ${limited.headers.get('retry-after')}`);
    check(limited.json?.error === 'Rate limit exceeded' && Number.isInteger(limited.json?.retry_after), `unexpected 429 body ${limited.text.slice(0, 200)}`);
    return `after ${sent} requests, Retry-After ${retryAfter}`;
  });

  await step('create and start an experiment', async () => {
    const base = `/admin/v1/projects/${need(projectId, 'a project')}/experiments`;
    const created = await call('POST', base, { admin: true, body: { name: `Smoke ${run}`, goal_event: eventName, variants: ['a', 'b'] } });
    expectStatus(created, 201, `POST ${base}`);
    const started = await call('POST', `${base}/${created.json.id}/start`, { admin: true });
    expectStatus(started, 200, 'POST …/start');
    experiment = { id: created.json.id, name: created.json.name, variants: created.json.variants };
    return `id ${experiment.id}`;
  });

  await step('GET /v1/experiments assigns a configured variant, the same on a second request', async () => {
    const exp = need(experiment, 'a running experiment');
    const path = `/v1/experiments?user_id=${encodeURIComponent(`${run}-user`)}`;
    const first = await call('GET', path, { key: need(key, 'a key') });
    expectStatus(first, 200, 'GET /v1/experiments');
    const variant = first.json?.assigned_variants?.[exp.name];
    check(exp.variants.includes(variant), `assigned_variants[${JSON.stringify(exp.name)}] is ${JSON.stringify(variant)}`);
    const again = await call('GET', path, { key: key! });
    check(again.json?.assigned_variants?.[exp.name] === variant, 'the assignment changed between two requests');
    return `variant ${variant}`;
  });

  await step('GET /v1/experiments/configs lists the experiment', async () => {
    const exp = need(experiment, 'a running experiment');
    const r = await call('GET', '/v1/experiments/configs', { key: need(key, 'a key') });
    expectStatus(r, 200, 'GET /v1/experiments/configs');
    const listed = (r.json?.experiments ?? []).find((e: { id: string }) => e.id === exp.id);
    check(
      listed && listed.name === exp.name && JSON.stringify(listed.variants) === JSON.stringify(exp.variants),
      `not listed as configured: ${r.text.slice(0, 300)}`,
    );
    return '';
  });

  // An enrollment and a conversion for the results step: one user exposed to variant a, then the goal event.
  const enrolledUser = `${run}-enrolled`;
  await step('POST /v1/events: an exposure to variant a and a goal event, after the start', async () => {
    const exp = need(experiment, 'a running experiment');
    const at = Date.now();
    const r = await call('POST', '/v1/events', {
      key: need(key, 'a key'),
      body: {
        events: [
          {
            name: '$experiment_exposure',
            user_id: enrolledUser,
            timestamp: new Date(at).toISOString(),
            properties: { $experiment_name: exp.name, $variant: 'a', run },
          },
          { name: eventName, user_id: enrolledUser, timestamp: new Date(at + 1).toISOString(), properties: { run } },
        ],
      },
    });
    expectStatus(r, 204, 'POST /v1/events');
    return `user ${enrolledUser}`;
  });

  const raw = options.rawEvents;
  await step(`both events reach the raw stream${raw ? ` (${raw.describe})` : ''}`, async () => {
    if (!raw) throw new Skip('no raw-stream check configured: pass --workgroup and --database for Athena, or --data-dir locally');
    const project = need(projectId, 'a project');
    const timeoutMs = options.rawTimeoutMs ?? 10 * 60_000;
    const pollMs = options.rawPollMs ?? 30_000;
    const t0 = Date.now();
    for (;;) {
      const found = await raw.count(project, eventName, day);
      if (found >= 2) return `${found} found after ${Math.round((Date.now() - t0) / 1000)} s`;
      // Events Firehose could not deliver never arrive: say so as soon as they show under errors/.
      const undelivered = await raw.errors(run, runStarted);
      check(undelivered.ofRun === 0, `${found} of 2 events delivered; ${undeliveredMessage(undelivered, raw.redrive)}`);
      const waited = Date.now() - t0;
      check(waited + pollMs <= timeoutMs, `${found} of 2 events after ${Math.round(waited / 1000)} s (timeout ${timeoutMs / 1000} s)`);
      print(`        … ${found} of 2 events so far, ${Math.round(waited / 1000)} s of at most ${timeoutMs / 1000} s (Firehose buffers up to 5 minutes)`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  });

  const delivered = results.at(-1)?.outcome === 'pass';
  await step(`nothing written under errors/ during the run (Firehose's undeliverable records)`, async () => {
    if (!raw) throw new Skip('no raw-stream check configured: pass --workgroup, --database and --raw-bucket for AWS, or --data-dir locally');
    const undelivered = await raw.errors(run, runStarted);
    check(undelivered.ofRun === 0 && undelivered.objects === 0, undeliveredMessage(undelivered, raw.redrive));
    return `none under ${undelivered.where}`;
  });

  await step('the compaction job keeps up (its state against the closed landing hours)', async () => {
    if (!raw?.compaction) throw new Skip('no raw-stream check configured: pass --workgroup, --database and --raw-bucket for AWS, or --data-dir locally');
    return raw.compaction();
  });

  await step('GET /admin/v1/projects/{id}/events lists both events', async () => {
    const project = need(projectId, 'a project');
    if (!delivered) throw new Skip('needs both events in the raw stream (the listing reads it)');
    const r = await call('GET', `/admin/v1/projects/${project}/events?name=${eventName}&limit=10`, { admin: true });
    expectStatus(r, 200, 'GET …/events');
    const users = new Set<string>((r.json?.events ?? []).map((e: { user_id?: string }) => e.user_id));
    const missing = [`${run}-v1`, `${run}-api`].filter((u) => !users.has(u));
    check(missing.length === 0, `not listed: ${missing.join(', ')} (listed ${r.json?.events?.length ?? 0})${why(r)}`);
    return `${r.json.events.length} listed`;
  });

  await step('GET …/events?user_id= lists the person’s events and names them by their email', async () => {
    const project = need(projectId, 'a project');
    if (!delivered) throw new Skip('needs the events in the raw stream (the listing reads it)');
    const r = await call('GET', `/admin/v1/projects/${project}/events?user_id=${encodeURIComponent(`${run}-v1`)}&limit=10`, { admin: true });
    expectStatus(r, 200, 'GET …/events?user_id=');
    const names = (r.json?.events ?? []).map((e: { name?: string }) => e.name);
    check(names.includes(eventName) && names.includes('$identify'), `listed ${JSON.stringify(names)}, expected ${eventName} and $identify${why(r)}`);
    const label = r.json?.people?.[`${run}-v1`]?.label;
    check(label === profile.email, `the person is named ${JSON.stringify(label)}, expected their email${why(r)}`);
    return `${names.length} listed, named ${label}`;
  });

  await step('GET /admin/v1/projects/{id}/event-names names the event with its count', async () => {
    const project = need(projectId, 'a project');
    if (!delivered) throw new Skip('needs both events in the raw stream (the names are read from it)');
    const r = await call('GET', `/admin/v1/projects/${project}/event-names`, { admin: true });
    expectStatus(r, 200, 'GET …/event-names');
    const named = (r.json?.event_names ?? []).find((n: { name: string }) => n.name === eventName);
    check(named && named.events >= 2, `${eventName} is not named with at least 2 events: ${r.text.slice(0, 200)}${why(r)}`);
    return `${eventName}: ${named.events} events`;
  });

  await step('GET /admin/v1/projects/{id}/property-names lists the property names of the latest events (the listing on the results engine)', async () => {
    const project = need(projectId, 'a project');
    if (!delivered) throw new Skip('needs the events in the raw stream (the names are read from it)');
    const r = await call('GET', `/admin/v1/projects/${project}/property-names`, { admin: true });
    expectStatus(r, 200, 'GET …/property-names');
    const names = r.json?.property_names;
    check(Array.isArray(names), `no property_names list: ${r.text.slice(0, 200)}${why(r)}`);
    return `${names.length} property name(s)`;
  });

  await step('POST …/plan measures a baseline from the delivered events (the planning query on the results engine)', async () => {
    const project = need(projectId, 'a project');
    if (!delivered) throw new Skip('needs the events in the raw stream (the baseline query reads it)');
    const r = await call('POST', `/admin/v1/projects/${project}/plan`, { admin: true, body: { metric: { event: '$experiment_exposure' }, mde: 0.5 } });
    // The exposure may not be delivered yet: then no active user sent it, and the answer says so.
    if (r.status === 422) {
      check(/none of the \d+ active users sent the event/.test(r.json?.error ?? ''), `POST …/plan: unexpected 422 ${r.text.slice(0, 200)}${why(r)}`);
      return 'no exposure delivered yet: 422 names the active users measured';
    }
    expectStatus(r, 200, 'POST …/plan');
    const active = r.json?.baseline?.events?.active_users;
    check(typeof active === 'number' && active >= 2, `baseline over ${active} active users, expected at least 2${why(r)}`);
    return `${active} active users, ${r.json.users_total} users needed`;
  });

  /** POSTs an insight definition and, on Athena, polls its query until it ends (a failure is 502 with Athena's reason). */
  const insight = async (kind: 'trends' | 'funnels' | 'retention', body: unknown) => {
    const project = need(projectId, 'a project');
    let r = await call('POST', `/admin/v1/projects/${project}/insights/${kind}`, { admin: true, body });
    // On Athena the query may outlast the route's wait: 202, then poll its poll_url.
    const t0 = Date.now();
    while (r.status === 202 && Date.now() - t0 < 120_000) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      r = await call('GET', String(r.json?.poll_url), { admin: true });
    }
    expectStatus(r, 200, `POST …/insights/${kind} (then GET poll_url)`);
    return r;
  };
  const scanned = (r: Reply) => `through ${r.json.data_through}, ${r.json.bytes_scanned ?? 0} bytes scanned on ${r.json.engine}`;

  await step('POST …/insights/trends runs the trends query on the results engine and answers (polling its query while it runs)', async () => {
    const r = await insight('trends', { series: [{ event: eventName }], date_from: day, date_to: day, compare: false });
    const total = r.json?.result?.lines?.[0]?.total;
    check(typeof total === 'number', `no total in the trends result${why(r)}`);
    // Events count once their arrival is before data_through (on AWS 25 minutes back), so 0 is possible here.
    return `${total} event(s) ${scanned(r)}`;
  });

  await step('POST …/insights/funnels and …/insights/retention run their queries and answer', async () => {
    const funnel = await insight('funnels', { steps: [{ event: '$experiment_exposure' }, { event: eventName }], date_from: day, date_to: day });
    const steps = funnel.json?.result?.groups?.[0]?.steps;
    check(Array.isArray(steps) && steps.length === 2 && typeof steps[0].users === 'number', `no 2-step funnel in the result${why(funnel)}`);
    const retention = await insight('retention', { start_event: eventName, return_event: eventName, date_from: day, date_to: day });
    check(Array.isArray(retention.json?.result?.cohorts), `no cohorts in the retention result${why(retention)}`);
    return `funnel ${steps.map((s: { users: number }) => s.users).join(' → ')} user(s) ${scanned(funnel)}; ${retention.json.result.cohorts.length} cohort(s)`;
  });

  await step('saved insights and dashboards: save one, list it, show it on a dashboard, delete both', async () => {
    const project = need(projectId, 'a project');
    const base = `/admin/v1/projects/${project}/saved-insights`;
    const definition = { series: [{ event: eventName }], date_from: day, date_to: day };
    const created = await call('POST', base, { admin: true, body: { name: `${run} smoke`, kind: 'trends', definition } });
    expectStatus(created, 201, 'POST …/saved-insights');
    const id = String(created.json?.id);
    const listed = await call('GET', base, { admin: true });
    expectStatus(listed, 200, 'GET …/saved-insights');
    const ids = JSON.stringify(listed.json);
    check(ids.includes(id), `the saved insight ${id} is not listed${why(listed)}`);
    const dashboards = `/admin/v1/projects/${project}/dashboards`;
    const dashboard = await call('POST', dashboards, { admin: true, body: { name: `${run} smoke`, tiles: [{ saved_insight_id: id }] } });
    expectStatus(dashboard, 201, 'POST …/dashboards');
    const shown = await call('GET', `${dashboards}/${String(dashboard.json?.id)}`, { admin: true });
    expectStatus(shown, 200, 'GET …/dashboards/{id}');
    check(shown.json?.tiles?.[0]?.insight?.id === id, `the dashboard does not show the saved insight ${id}${why(shown)}`);
    expectStatus(await call('DELETE', `${dashboards}/${String(dashboard.json?.id)}`, { admin: true }), 204, 'DELETE …/dashboards/{id}');
    const deleted = await call('DELETE', `${base}/${id}`, { admin: true });
    expectStatus(deleted, 204, `DELETE …/saved-insights/${id}`);
    return `saved, listed, shown on a dashboard and deleted ${id}`;
  });

  await step('GET /admin/v1/audit lists the run’s writes, made with the admin token (a machine sign-in)', async () => {
    const project = need(projectId, 'a project');
    const r = await call('GET', `/admin/v1/audit?project_id=${project}&route=admin-saved-insights-delete`, { admin: true });
    expectStatus(r, 200, 'GET /admin/v1/audit');
    const entries: Array<{ actor?: { via?: string }; status?: unknown }> = r.json?.entries ?? [];
    check(entries.length === 1, `listed ${entries.length} audit entries for the saved insight's delete, expected 1${why(r)}`);
    check(entries[0]!.actor?.via === 'admin-token' && entries[0]!.status === 204, `the entry is not the admin token's 204${why(r)}`);
    return 'the delete is recorded as the admin token’s, with its 204';
  });

  await step('GET /admin/v1/projects/{id}/users lists the smoke users with their profile fields', async () => {
    const project = need(projectId, 'a project');
    if (!delivered) throw new Skip('needs the events in the raw stream (the listing reads it)');
    const r = await call('GET', `/admin/v1/projects/${project}/users?search=${encodeURIComponent(run)}`, { admin: true });
    expectStatus(r, 200, 'GET …/users');
    const users: Array<{ user_id: string; first_seen?: unknown }> = r.json?.users ?? [];
    check(users.length >= 2, `listed ${users.length} user(s), expected the 2 smoke users${why(r)}`);
    check(
      users.every((u) => 'first_seen' in u),
      `a listed user has no first_seen field${why(r)}`,
    );
    return `${users.length} listed`;
  });

  await step('GET …/users finds a user by email and by name, and pages with next_cursor', async () => {
    const project = need(projectId, 'a project');
    if (!delivered) throw new Skip('needs the events in the raw stream (the listing reads it)');
    const users = `/admin/v1/projects/${project}/users`;
    for (const [field, search] of [
      ['email', profile.email.toUpperCase()],
      ['name', profile.name.slice('Smoke '.length)],
    ] as const) {
      const r = await call('GET', `${users}?search=${encodeURIComponent(search)}`, { admin: true });
      expectStatus(r, 200, `GET …/users?search=<${field}>`);
      const found: Array<{ user_id: string; email?: unknown; name?: unknown }> = r.json?.users ?? [];
      check(
        found.length === 1 && found[0]!.user_id === `${run}-v1` && found[0]![field] === profile[field],
        `search by ${field} found ${JSON.stringify(found.map((u) => u.user_id))}, expected only ${run}-v1 with its ${field}${why(r)}`,
      );
    }
    const first = await call('GET', `${users}?search=${encodeURIComponent(run)}&limit=1`, { admin: true });
    expectStatus(first, 200, 'GET …/users?limit=1');
    const cursor: unknown = first.json?.next_cursor;
    check(
      first.json?.users?.length === 1 && typeof cursor === 'string',
      `limit=1 over 2 users gave ${first.text.slice(0, 200)}, expected 1 user and a next_cursor${why(first)}`,
    );
    const second = await call('GET', `${users}?search=${encodeURIComponent(run)}&limit=1&cursor=${encodeURIComponent(cursor)}`, { admin: true });
    expectStatus(second, 200, 'GET …/users?cursor=');
    const ids = [first.json.users[0].user_id, second.json?.users?.[0]?.user_id];
    check(
      second.json?.users?.length === 1 && ids[0] !== ids[1],
      `the next page gave ${second.text.slice(0, 200)}, expected the other smoke user${why(second)}`,
    );
    return `email and name each found ${run}-v1; pages ${ids.join(', ')}`;
  });

  await step('POST …/results/refresh ends committed: true with a: 1 enrolled, 1 converted; b: none', async () => {
    const exp = need(experiment, 'a running experiment');
    const path = `/admin/v1/projects/${need(projectId, 'a project')}/experiments/${exp.id}/results/refresh`;
    // The events may still be in Firehose's buffer, and a refresh past its 20 s budget answers 202
    // (the scheduled job completes it): refresh again until the counts are in, up to the raw timeout.
    const timeoutMs = options.rawTimeoutMs ?? 10 * 60_000;
    const pollMs = options.rawPollMs ?? 30_000;
    const t0 = Date.now();
    for (let attempt = 1; ; attempt++) {
      const r = await call('POST', path, { admin: true });
      check(r.status === 200 || r.status === 202, `POST …/results/refresh: expected 200 or 202, got ${r.status} ${r.text.slice(0, 200)}${why(r)}`);
      const counts = (v: string) => (r.json?.variants ?? []).find((x: { variant: string }) => x.variant === v);
      const seen =
        r.status === 202
          ? `202 (${r.json?.status})`
          : `a: ${JSON.stringify(counts('a') && { enrolled: counts('a').enrolled, converted: counts('a').converted })}, incremental ${JSON.stringify(r.json?.incremental)}`;
      const done =
        r.status === 200 &&
        r.json?.incremental?.committed === true &&
        counts('a')?.enrolled === 1 &&
        counts('a')?.converted === 1 &&
        counts('b')?.enrolled === 0;
      if (done) return `after ${attempt} refresh${attempt > 1 ? 'es' : ''}, watermark ${r.json.incremental.watermark}`;
      const waited = Date.now() - t0;
      check(waited + pollMs <= timeoutMs, `after ${Math.round(waited / 1000)} s: ${seen}${why(r)}`);
      print(`        … ${seen} so far, ${Math.round(waited / 1000)} s of at most ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  });

  await step(DELETION_STEP, async () => {
    const project = need(projectId, 'a project');
    if (!raw?.countPerson) throw new Skip('no raw-stream check configured: pass --workgroup, --database and --raw-bucket for AWS, or --data-dir locally');
    if (!delivered) throw new Skip('needs the person’s events in the raw stream (the deletion removes them from it)');
    const person = `${run}-v1`;
    const before = await raw.countPerson(project, person, day);
    check(before >= 1, `0 events of ${person} in the raw stream before the deletion: nothing to check its removal against`);
    const base = `/admin/v1/projects/${project}/deletions`;
    const asked = await call('POST', base, { admin: true, body: { user_id: person, reason: `Tally smoke test ${run}` } });
    expectStatus(asked, 202, `POST ${base}`);
    const id = String(asked.json?.deletion?.id);
    const timeoutMs = options.deletionTimeoutMs ?? DELETION_TIMEOUT_MS;
    const pollMs = options.rawPollMs ?? 30_000;
    const t0 = Date.now();
    let r: Reply;
    for (;;) {
      r = await call('GET', `${base}/${id}`, { admin: true });
      expectStatus(r, 200, `GET ${base}/${id}`);
      const d = r.json?.deletion;
      if (d?.state === 'done') break;
      const waited = Date.now() - t0;
      check(
        waited + pollMs <= timeoutMs,
        `deletion ${id} still ${d?.state} after ${Math.round(waited / 1000)} s (timeout ${timeoutMs / 1000} s): ` +
          `the compaction job carries deletions out after each run. See the alarm compact-landing-DeletionFailed and the compact-landing function's log ` +
          `("a deletion step failed"; ${jobLogGroupHint('compact-landing', stackName)}); docs/deploy.md, "Compaction"`,
      );
      print(
        `        … deletion ${id} ${d?.state}, ${Math.round(waited / 1000)} s of at most ${timeoutMs / 1000} s (the compaction job carries it out after its run)`,
      );
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    const d = r.json.deletion;
    const removed = (store: string): number => (d.receipt ?? []).find((l: { store: string }) => l.store === store)?.removed ?? 0;
    const events = removed('landing_events') + removed('curated_events');
    check(
      typeof d.finished_at === 'string' && Array.isArray(d.ids) && d.ids.includes(person),
      `the done deletion has no finished_at or does not name ${person} among its ids: ${r.text.slice(0, 300)}`,
    );
    check(
      removed('identities') >= 1,
      `the receipt removed ${removed('identities')} identities item(s), expected the person’s profile: ${JSON.stringify(d.receipt)}`,
    );
    check(
      events >= before,
      `the receipt removed ${events} event row(s) (landing and curated), expected at least the ${before} found: ${JSON.stringify(d.receipt)}`,
    );
    const after = await raw.countPerson(project, person, day);
    check(after === 0, `${after} event(s) of ${person} still in the raw stream after deletion ${id} was done (${raw.describe})`);
    return `deletion ${id} done after ${Math.round((Date.now() - t0) / 1000)} s: ${before} event(s) found before, ${events} row(s) removed, 0 left`;
  });

  await step('the dashboard answers with its Content-Security-Policy', async () => {
    if (!options.dashboardUrl) throw new Skip('no dashboard URL: pass --dashboard <DashboardUrl> (none with -c dashboard=false)');
    const res = await fetch(options.dashboardUrl);
    await res.text();
    const id = res.headers.get('x-amz-cf-id');
    const tail = ` [${id ? `x-amz-cf-id: ${id}` : 'no request ID'}; CloudFront distribution of the DashboardUrl output]`;
    check(res.status === 200, `GET ${options.dashboardUrl}: expected 200, got ${res.status}${tail}`);
    const csp = res.headers.get('content-security-policy') ?? '';
    check(
      /(^|;)\s*connect-src\s/.test(csp) && /(^|;)\s*script-src\s/.test(csp),
      `no Content-Security-Policy with connect-src and script-src: ${JSON.stringify(csp)}${tail}`,
    );
    // The API the deployed config names must be one the CSP lets the page call.
    const config = await fetch(new URL('config.json', options.dashboardUrl));
    const apiUrl: unknown = config.ok ? ((await config.json()) as { apiUrl?: unknown }).apiUrl : undefined;
    if (typeof apiUrl === 'string') {
      const origin = new URL(apiUrl).origin;
      check(csp.includes(origin), `the CSP does not allow the API of config.json (${origin})${tail}`);
      return `CSP allows ${origin}`;
    }
    return 'CSP sent (config.json names no other API origin)';
  });

  await step('clean up: stop the experiment and revoke the keys', async () => {
    const project = need(projectId, 'a project');
    if (experiment) expectStatus(await call('POST', `/admin/v1/projects/${project}/experiments/${experiment.id}/stop`, { admin: true }), 200, 'POST …/stop');
    for (const id of [keyId, burstKeyId]) {
      if (id) expectStatus(await call('DELETE', `/admin/v1/projects/${project}/keys/${id}`, { admin: true }), 204, 'DELETE …/keys/{key_id}');
    }
    return `project ${project} stays (projects cannot be deleted)`;
  });

  const count = (o: Outcome) => results.filter((r) => r.outcome === o).length;
  print(`Summary: ${count('pass')} passed, ${count('fail')} failed, ${count('skip')} skipped in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return results;
}
