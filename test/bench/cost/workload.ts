/**
 * The traffic the cost benchmark sends, and the deployment defaults it bills against.
 *
 * Events: a web SDK's page views, clicks and form events, about 500 bytes each as sent (the JSON of
 * one element of `events`), batched with a `context`. One device per batch, as an SDK batches; each
 * user sends EVENTS_PER_USER events in all: the first ANONYMOUS_EVENTS under an anonymous ID, then one
 * `$identify` (linking the anonymous ID, with email and name), then the rest under the user ID. So the
 * share of events that meet new IDs, links and profile updates is the same at every batch size.
 * No experiment exposures, no retries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const EVENTS_PER_USER = 100;
export const ANONYMOUS_EVENTS = 10;
const NAMES = ['page_view', 'button_click', 'page_view', 'form_submit', 'page_view', 'scroll_depth'];
const PATHS = ['/pricing', '/docs/getting-started', '/blog/2026/11/launch-week', '/signup', '/app/dashboard'];

/** Event `n` of the run (0-based) for a project: deterministic. */
export function sentEvent(n: number, t0: number): Record<string, unknown> {
  const user = Math.floor(n / EVENTS_PER_USER);
  const k = n % EVENTS_PER_USER;
  const path = PATHS[n % PATHS.length]!;
  const userId = `usr_${String(user).padStart(8, '0')}a91f`;
  const anonymousId = `anon_${String(user).padStart(8, '0')}-5e1d-4c2a-8f3b`;
  const identify = k === ANONYMOUS_EVENTS;
  return {
    name: identify ? '$identify' : NAMES[n % NAMES.length],
    event_id: `7f3c1e2a-${String(n).padStart(4, '0').slice(-4)}-4b8d-9c1e-${String(n).padStart(12, '0')}`,
    user_id: k < ANONYMOUS_EVENTS ? anonymousId : userId,
    session_id: `sess_${String(user).padStart(6, '0')}_1767225`,
    timestamp: new Date(t0 + n * 1500).toISOString(),
    properties: {
      path,
      url: `https://www.example-shop.com${path}?utm_source=newsletter&utm_medium=email`,
      title: 'Example Shop: plans and pricing for growing teams',
      referrer: 'https://www.google.com/',
      button: n % 6 === 1 ? `cta-start-trial-${n % 3}` : null,
      viewport: { width: 1440, height: 900 },
      plan: 'pro',
      campaign: 'black-friday-2026',
      ...(identify ? { $anonymous_id: anonymousId, email: `user${user}@example.com`, name: `User ${user}` } : {}),
    },
  };
}

export const CONTEXT = {
  platform: 'web',
  app_version: '4.2.0',
  os_version: 'macOS 15.1',
  locale: 'en-GB',
  timezone: 'Europe/London',
  device_manufacturer: 'Apple',
};

/** The request bodies of a run: `events` events in batches of `batch`. */
export function batches(events: number, batch: number, t0: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < events; i += batch) {
    const list = Array.from({ length: Math.min(batch, events - i) }, (_, j) => sentEvent(i + j, t0));
    out.push(JSON.stringify({ context: CONTEXT, events: list }));
  }
  return out;
}

export interface StackDefaults {
  memoryMb: number;
  keyCacheTtlSeconds: number;
  authorizerResultsCacheTtlSeconds: number;
  bufferingIntervalSeconds: number;
  bufferingSizeMiB: number;
  apiAccessLogs: boolean;
  logLevel: string;
  /** The API Gateway access log line: field -> $context variable. */
  accessLogFormat: Record<string, string>;
}

/**
 * The deployed defaults, read from the stack's source so the bill follows lib/ when it changes
 * (a regex per setting; a setting that moved fails the benchmark loudly instead of drifting).
 */
export function readStackDefaults(repoRoot: string): StackDefaults {
  const stack = readFileSync(join(repoRoot, 'lib/tally-stack.ts'), 'utf8');
  const api = readFileSync(join(repoRoot, 'lib/api/api.ts'), 'utf8');
  const grab = (text: string, re: RegExp, what: string) => {
    const m = re.exec(text);
    if (!m) throw new Error(`bench:cost could not find ${what} in lib/; update test/bench/cost/workload.ts`);
    return m[1]!;
  };
  const format = grab(api, /AccessLogFormat\.custom\(\s*JSON\.stringify\(\{([\s\S]*?)\}\)/, 'the access log format');
  const accessLogFormat = Object.fromEntries([...format.matchAll(/(\w+):\s*'(\$context\.[\w.]+)'/g)].map((m) => [m[1]!, m[2]!]));
  return {
    memoryMb: Number(grab(stack, /memorySize:\s*props\.memorySize\s*\?\?\s*(\d+)/, 'the default memorySize')),
    keyCacheTtlSeconds: Number(grab(stack, /props\.keyCacheTtl\s*\?\?\s*Duration\.seconds\((\d+)\)/, 'the default keyCacheTtl')),
    authorizerResultsCacheTtlSeconds: Number(grab(api, /resultsCacheTtl:\s*Duration\.seconds\((\d+)\)/, "the authorizer's resultsCacheTtl")),
    bufferingIntervalSeconds: Number(grab(stack, /firehoseBufferingInterval\s*\?\?\s*Duration\.seconds\((\d+)\)/, 'the Firehose buffering interval')),
    bufferingSizeMiB: Number(grab(stack, /firehoseBufferingSize\s*\?\?\s*Size\.mebibytes\((\d+)\)/, 'the Firehose buffering size')),
    apiAccessLogs: grab(stack, /accessLogs:\s*props\.apiAccessLogs\s*\?\?\s*(true|false)/, 'the apiAccessLogs default') === 'true',
    logLevel: grab(stack, /logLevel:\s*props\.logLevel\s*\?\?\s*'(\w+)'/, 'the default log level'),
    accessLogFormat,
  };
}

/** One access log line as API Gateway writes it for a 204 ingestion request (representative values). */
export function accessLogLine(format: Record<string, string>, ids: { projectId: string; keyId: string }): string {
  const values: Record<string, string> = {
    '$context.requestId': 'c0ffee00-1234-4abc-9def-0123456789ab',
    '$context.requestTimeEpoch': '1795000000000',
    '$context.httpMethod': 'POST',
    '$context.resourcePath': '/v1/events',
    '$context.status': '204',
    '$context.error.responseType': '-',
    '$context.responseLatency': '48',
    '$context.integrationLatency': '41',
    '$context.authorizer.status': '200',
    '$context.authorizer.latency': '6',
    '$context.authorizer.key_id': ids.keyId,
    '$context.authorizer.project_id': ids.projectId,
    '$context.responseLength': '0',
  };
  return JSON.stringify(Object.fromEntries(Object.entries(format).map(([k, v]) => [k, values[v] ?? '-'])));
}
