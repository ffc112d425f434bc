/**
 * The heaviest requests the admin API accepts, for the test and the benchmark that check no request
 * blocks the local server (test/e2e/no-blocking.e2e.test.ts, npm run bench:blocking): the widest
 * ranges, the most buckets, series, steps and breakdown values each insight kind allows, and plans at
 * the corners of their bounds; and a steady stream of ingestion batches beside them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARRIVAL_HOUR, landingHour } from '../../lambdas/contract/landing';
import type { StoredEvent } from '../../lambdas/domain/event';
import { MAX_FUNNEL_STEPS } from '../../lambdas/domain/insights/funnels-definition';
import { MAX_DAILY_DAYS } from '../../lambdas/domain/insights/retention-definition';
import { MAX_HOURLY_DAYS, MAX_SERIES } from '../../lambdas/domain/insights/trends-definition';
import { PLAN_BOUNDS } from '../../lambdas/domain/plan-bounds';
import type { TestStack } from './local';

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The events of a project over the `days` days before `now`: every event name the requests use, 30 plans, 3 platforms. */
export function heavyEvents(now: number, count: number, days = 31): Array<Record<string, unknown>> {
  const names = ['view', 'signup', 'cart', 'checkout', 'purchase', 'share'];
  return Array.from({ length: count }, (_, i) => ({
    name: names[i % names.length],
    user_id: `heavy-${i % Math.max(1, Math.floor(count / 4))}`,
    timestamp: new Date(now - DAY_MS - ((i * 7919) % (days * DAY_MS - DAY_MS))).toISOString(),
    platform: ['ios', 'android', 'web'][i % 3],
    properties: { plan: `plan-${i % 30}`, amount: (i % 97) + 0.5 },
  }));
}

/**
 * Many more events than ingestion could send in a test's time, written straight into the events'
 * landing folder (`eventsDir` is landing/events: arrival_hour=<hour>/, as Firehose delivers them):
 * copies of `template` (an event the server stored) with their own user, name, day, platform and
 * plan, over the 366 days before `now`, all received an hour before `now`.
 */
export function writeRawEvents(eventsDir: string, template: StoredEvent, count: number, now: number): void {
  const names = ['view', 'signup', 'cart', 'checkout', 'purchase', 'share'];
  const receivedAt = new Date(now - 3_600_000).toISOString();
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const timestamp = new Date(now - DAY_MS - ((i * 104_729) % (365 * DAY_MS))).toISOString();
    const user = `raw-${i % Math.max(1, Math.floor(count / 5))}`;
    const event: StoredEvent = {
      ...template,
      dedupe_key: `raw-${i}`,
      event_id: null,
      name: names[i % names.length]!,
      user_id: user,
      sent_user_id: user,
      timestamp,
      received_at: receivedAt,
      platform: ['ios', 'android', 'web'][i % 3]!,
      properties: { plan: `plan-${i % 30}`, amount: (i % 97) + 0.5 },
    };
    lines.push(JSON.stringify(event));
  }
  const dir = join(eventsDir, `${ARRIVAL_HOUR}=${landingHour(Date.parse(receivedAt))}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'heavy.ndjson'), lines.join('\n') + '\n');
}

export interface HeavyRequest {
  label: string;
  path: string;
  body: unknown;
}

/** The worst accepted request of each kind, ending on the day before `now`. */
export function heavyRequests(projectId: string, now: number): HeavyRequest[] {
  const to = day(now - DAY_MS);
  const from = (days: number) => day(now - days * DAY_MS);
  const events = ['view', 'signup', 'cart', 'checkout', 'purchase', 'share'];
  const insight = (kind: string) => `/admin/v1/projects/${projectId}/insights/${kind}`;
  const plan = `/admin/v1/projects/${projectId}/plan`;
  const series = events.slice(0, MAX_SERIES).map((event, i) => (i % 2 ? { event, measure: 'average', property: 'amount' } : { event, measure: 'users' }));
  return [
    {
      label: `trends: ${MAX_SERIES} series by hour over ${MAX_HOURLY_DAYS} days, broken down by a property, compared`,
      path: insight('trends'),
      body: { series, interval: 'hour', date_from: from(MAX_HOURLY_DAYS), date_to: to, breakdown: 'property', breakdown_property: 'plan' },
    },
    {
      label: 'trends: by day over 366 days, broken down, compared',
      path: insight('trends'),
      body: { series, interval: 'day', date_from: from(366), date_to: to, breakdown: 'property', breakdown_property: 'plan' },
    },
    {
      label: `funnels: ${MAX_FUNNEL_STEPS} steps over 366 days, a 90-day window, broken down`,
      path: insight('funnels'),
      body: {
        steps: events.slice(0, MAX_FUNNEL_STEPS).map((event) => ({ event })),
        conversion_window_days: 90,
        date_from: from(366),
        date_to: to,
        breakdown: 'property',
        breakdown_property: 'plan',
      },
    },
    {
      label: `retention: by day over ${MAX_DAILY_DAYS} days`,
      path: insight('retention'),
      body: { start_event: 'view', return_event: 'purchase', interval: 'day', date_from: from(MAX_DAILY_DAYS), date_to: to },
    },
    {
      label: 'retention: by week over 366 days',
      path: insight('retention'),
      body: { start_event: 'view', return_event: 'view', interval: 'week', date_from: from(366), date_to: to },
    },
    {
      label: 'plan: the rarest rate, the smallest change, the most power, the smallest alpha, 26 variants',
      path: plan,
      body: {
        metric: { event: 'purchase' },
        mde: PLAN_BOUNDS.mde.min,
        power: PLAN_BOUNDS.power.max,
        alpha: PLAN_BOUNDS.alpha.min,
        variants: Array.from({ length: 26 }, (_, i) => `v${i}`),
        baseline: { rate: PLAN_BOUNDS.rate.min, users_per_day: PLAN_BOUNDS.usersPerDay.min },
      },
    },
    {
      label: 'plan: a sum from the events over 90 days, sequential',
      path: plan,
      body: { metric: { event: 'purchase', kind: 'sum', property: 'amount' }, mde: PLAN_BOUNDS.mde.min, lookback_days: 90 },
    },
  ];
}

export interface TimedAnswer {
  status: number;
  ms: number;
}

/** Sends one small batch (5 events, a fresh user each time) and times its answer. */
export async function timedIngest(stack: TestStack, key: string, n: number, now: number): Promise<TimedAnswer> {
  const started = performance.now();
  const res = await stack.post('/v1/events', key, {
    events: Array.from({ length: 5 }, (_, i) => ({ name: 'tick', user_id: `ingest-${n}-${i}`, timestamp: new Date(now - 60_000).toISOString() })),
  });
  return { status: res.status, ms: performance.now() - started };
}

/** Ingestion batches one after another, `gapMs` apart, until `until()` is true: every answer timed. */
export async function ingestWhile(stack: TestStack, key: string, now: number, until: () => boolean, gapMs = 20): Promise<TimedAnswer[]> {
  const answers: TimedAnswer[] = [];
  for (let n = 0; !until(); n++) {
    answers.push(await timedIngest(stack, key, n, now));
    await new Promise((r) => setTimeout(r, gapMs));
  }
  return answers;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))]! : NaN;
};
