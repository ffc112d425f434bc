/**
 * Metrics in the results (issue 22) through the local stack: events over HTTP under a controlled
 * clock, the experiment's metrics set through the real experiment store (the experiment API does not
 * take them yet), results through POST .../results/refresh (the incremental count: state plus tail)
 * and GET .../results. Every figure is counted by hand below: a conversion, a count, a sum with a
 * non-numeric value and a numeric string, the same sum capped at a percentile between two users'
 * values, a user who logs in mid-run (the purchase made under the user ID joins the anonymous
 * enrollment), an event before enrollment (not counted) and a raw copy of an event (counted once).
 * Then a guardrail breached: the results say so, and the refresh emits the GuardrailBreached metric.
 */
import { expectWatchedByAlarm } from '../helpers/emf';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Experiment } from '../../lambdas/domain/experiment';
import type { ExperimentMetric } from '../../lambdas/domain/experiment-metric';
import { startTestProject, type TestStack } from '../helpers/local';
import { writeLandingEvents } from '../helpers/landing';

let now = Date.parse('2026-04-01T09:00:00.000Z');
let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('results-metrics', { clock: () => now }));
});
afterAll(() => stack.stop());
afterEach(() => vi.restoreAllMocks());

const at = (iso: string) => (now = Date.parse(iso));
const send = async (events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
const base = () => `/admin/v1/projects/${project}/experiments`;
const exposure = (user: string, timestamp: string, experiment: string, variant: string) => ({
  name: '$experiment_exposure',
  user_id: user,
  timestamp,
  properties: { $experiment_name: experiment, $variant: variant },
});
const ev = (name: string, user: string, timestamp: string, properties?: Record<string, unknown>) => ({
  name,
  user_id: user,
  timestamp,
  ...(properties ? { properties } : {}),
});

/** Creates the experiment through the real store (metrics, sequential and correction included), then starts it over HTTP. */
async function startExperiment(name: string, startedAt: string, fields: Pick<Experiment, 'metrics' | 'sequential' | 'correction'>): Promise<string> {
  const id = randomUUID();
  await stack.deps.experiments.create({
    id,
    project_id: project,
    name,
    variants: ['control', 'treatment'],
    weights: null,
    goal_event: 'signup',
    description: null,
    status: 'created',
    created_at: new Date(now).toISOString(),
    started_at: null,
    stopped_at: null,
    ...fields,
  });
  at(startedAt);
  expect((await stack.admin('POST', `${base()}/${id}/start`)).body.started_at).toBe(startedAt);
  return id;
}

async function refresh(id: string) {
  const res = await stack.admin('POST', `${base()}/${id}/results/refresh`);
  expect(res.status).toBe(200);
  return res.body;
}

/** The figures a reader compares: per metric, per variant users, mean and standard error presence. */
const figures = (r: any) =>
  r.metrics.map((m: any) => [m.name, m.kind, m.role, m.variants.map((v: any) => [v.variant, v.users, v.mean === null ? null : Number(v.mean.toFixed(9))])]);

const METRICS: ExperimentMetric[] = [
  { name: 'Carts', event: 'add_to_cart', kind: 'conversion', role: 'secondary' },
  { name: 'Page views', event: 'page_view', kind: 'count', role: 'secondary' },
  { name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'guardrail', direction: 'decrease' },
  { name: 'Revenue (capped)', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary', cap: 0.6 },
];

describe('metrics in the results', () => {
  it('counts each kind by hand: conversion, count, sum (a word counts 0, a numeric string counts), capped sum, a mid-run login, an event before enrollment, a raw copy', async () => {
    const id = await startExperiment('Checkout Metrics', '2026-04-01T10:00:00.000Z', { metrics: METRICS, correction: 'holm' });
    at('2026-04-01T14:00:00.000Z');
    await send([
      // c1 (control): a page view BEFORE enrolling (not counted), enrolls, then a cart, two page
      // views, a purchase of 10 and one whose amount is a word (counts 0), and the goal.
      ev('page_view', 'c1', '2026-04-01T10:30:00.000Z'),
      exposure('c1', '2026-04-01T11:00:00.000Z', 'Checkout Metrics', 'control'),
      ev('add_to_cart', 'c1', '2026-04-01T11:05:00.000Z'),
      ev('page_view', 'c1', '2026-04-01T11:06:00.000Z'),
      ev('page_view', 'c1', '2026-04-01T11:07:00.000Z'),
      ev('purchase', 'c1', '2026-04-01T11:10:00.000Z', { amount: 10 }),
      ev('purchase', 'c1', '2026-04-01T11:11:00.000Z', { amount: 'n/a' }),
      ev('signup', 'c1', '2026-04-01T11:12:00.000Z'),
      // c2 (control): one page view (its raw copy is added below) and a purchase of "30" (a numeric string).
      exposure('c2', '2026-04-01T11:20:00.000Z', 'Checkout Metrics', 'control'),
      ev('page_view', 'c2', '2026-04-01T11:21:00.000Z'),
      ev('purchase', 'c2', '2026-04-01T11:22:00.000Z', { amount: '30' }),
      // t1 (treatment): enrolls anonymously and views a page; buys for 100 under the user ID, not yet linked.
      exposure('anon-t1', '2026-04-01T12:00:00.000Z', 'Checkout Metrics', 'treatment'),
      ev('page_view', 'anon-t1', '2026-04-01T12:01:00.000Z'),
      ev('purchase', 'user-t1', '2026-04-01T12:30:00.000Z', { amount: 100 }),
      // t2 (treatment): enrolls, nothing else (zeros everywhere).
      exposure('t2', '2026-04-01T12:40:00.000Z', 'Checkout Metrics', 'treatment'),
      // t3 (treatment): a cart, a purchase of 7.5, the goal.
      exposure('t3', '2026-04-01T13:00:00.000Z', 'Checkout Metrics', 'treatment'),
      ev('add_to_cart', 't3', '2026-04-01T13:01:00.000Z'),
      ev('purchase', 't3', '2026-04-01T13:02:00.000Z', { amount: 7.5 }),
      ev('signup', 't3', '2026-04-01T13:03:00.000Z'),
    ]);

    // First look: user-t1's purchase is nobody's yet (t1 has 0 revenue).
    at('2026-04-01T15:00:00.000Z');
    const first = await refresh(id);
    // Per-user revenue c1 10, c2 30, t1 0, t2 0, t3 7.5; capped: sorted [0, 0, 7.5, 10, 30], h = 2.4 →
    // 7.5 + 0.4 × 2.5 = 8.5, so control 8.5 + 8.5, treatment 0 + 0 + 7.5.
    expect(figures(first).slice(3)).toEqual([
      [
        'Revenue',
        'sum',
        'guardrail',
        [
          ['control', 2, 20],
          ['treatment', 3, 2.5],
        ],
      ],
      [
        'Revenue (capped)',
        'sum',
        'secondary',
        [
          ['control', 2, 8.5],
          ['treatment', 3, 2.5],
        ],
      ],
    ]);

    // A raw copy of c2's page view: a resend stored again the next morning (an offline client resending
    // after a crash), in its arrival hour's landing folder. The original is already in the state; the copy is not.
    const original = stack.rawEvents(project).find((e) => e.name === 'page_view' && e.sent_user_id === 'c2')!;
    const copy = { ...original, received_at: '2026-04-02T08:59:00.000Z' };
    writeLandingEvents(stack.dataDir, [copy], { file: 'copy-after-crash.ndjson' });

    // t1 logs in: the purchase under the user ID becomes the anonymous enrollment's.
    at('2026-04-02T09:00:00.000Z');
    await send([{ name: '$identify', user_id: 'user-t1', timestamp: '2026-04-02T09:00:00.000Z', properties: { $anonymous_id: 'anon-t1' } }]);
    at('2026-04-02T10:00:00.000Z');
    const r = await refresh(id);
    // The copy was read (the state advanced past its arrival) and counted once.
    expect(r.incremental.watermark > copy.received_at).toBe(true);

    // Hand counts (control: c1, c2; treatment: t1, t2, t3):
    //  Carts       control 1 of 2 (c1);            treatment 1 of 3 (t3)
    //  Page views  control 2 (c1, not the one before enrolling) + 1 (c2, its copy once) = 3
    //              treatment 1 (t1, as anon) + 0 + 0 = 1
    //  Revenue     control 10 + 0 ("n/a") + 30 ("30") = 40;  treatment 100 (t1 after the login) + 0 + 7.5 = 107.5
    //  Capped      per-user values pooled: c1 10, c2 30, t1 100, t2 0, t3 7.5, sorted [0, 7.5, 10, 30, 100];
    //              h = (5 - 1) × 0.6 = 2.4 → v3 + 0.4 × (v4 - v3) = 10 + 0.4 × 20 = 18;
    //              control 10 + 18 = 28, treatment 18 + 0 + 7.5 = 25.5
    expect(figures(r)).toEqual([
      [
        'signup',
        'conversion',
        'primary',
        [
          ['control', 2, 0.5],
          ['treatment', 3, Number((1 / 3).toFixed(9))],
        ],
      ],
      [
        'Carts',
        'conversion',
        'secondary',
        [
          ['control', 2, 0.5],
          ['treatment', 3, Number((1 / 3).toFixed(9))],
        ],
      ],
      [
        'Page views',
        'count',
        'secondary',
        [
          ['control', 2, 1.5],
          ['treatment', 3, Number((1 / 3).toFixed(9))],
        ],
      ],
      [
        'Revenue',
        'sum',
        'guardrail',
        [
          ['control', 2, 20],
          ['treatment', 3, Number((107.5 / 3).toFixed(9))],
        ],
      ],
      [
        'Revenue (capped)',
        'sum',
        'secondary',
        [
          ['control', 2, 14],
          ['treatment', 3, 8.5],
        ],
      ],
    ]);
    // Standard errors from the sums of squares: Revenue control values 10, 30 → sample variance 200, se 10.
    expect(r.metrics[3].variants[0].std_error).toBeCloseTo(10, 9);
    // Capped treatment values 18, 0, 7.5: mean 8.5, variance (9.5² + 8.5² + 1²) / 2 = 81.75, se sqrt(81.75 / 3).
    expect(r.metrics[4].variants[1].std_error).toBeCloseTo(Math.sqrt(81.75 / 3), 9);
    // The primary metric is the goal's counts, unchanged next to it; today's fields stay.
    expect(r.variants.map((v: any) => [v.variant, v.enrolled, v.converted])).toEqual([
      ['control', 2, 1],
      ['treatment', 3, 1],
    ]);
    // Every comparison field; Holm adjusts the non-guardrail family (primary and secondaries), not the guardrail.
    for (const m of r.metrics) {
      expect(Object.keys(m.comparisons[0]).sort()).toEqual(
        [
          'variant',
          'difference',
          'ci_low',
          'ci_high',
          'p_value',
          'relative_difference',
          'relative_ci_low',
          'relative_ci_high',
          'relative_p_value',
          'adjusted_p_value',
        ].sort(),
      );
      expect(m.comparisons[0].variant).toBe('treatment');
      if (m.role === 'guardrail') expect(m.comparisons[0].adjusted_p_value).toBeNull();
      else if (m.comparisons[0].p_value !== null) expect(m.comparisons[0].adjusted_p_value).toBeGreaterThanOrEqual(m.comparisons[0].p_value);
    }
    expect(r.metrics[3].breached).toBe(false);
    expect(r.guardrail_breached).toBe(false);
    // GET returns what the refresh stored.
    const stored = (await stack.admin('GET', `${base()}/${id}/results`)).body;
    expect(stored.metrics).toEqual(r.metrics);
    expect(stored.guardrail_breached).toBe(false);
  });

  it('marks a guardrail breached when a variant moves it significantly in its bad direction, and emits the GuardrailBreached metric', async () => {
    const id = await startExperiment('Cheaper Checkout', '2026-04-05T08:00:00.000Z', {
      metrics: [{ name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'guardrail', direction: 'decrease' }],
      sequential: false,
    });
    at('2026-04-05T12:00:00.000Z');
    const events: unknown[] = [];
    for (let i = 0; i < 12; i++) {
      const minute = String(i).padStart(2, '0');
      events.push(exposure(`rc${i}`, `2026-04-05T09:${minute}:00.000Z`, 'Cheaper Checkout', 'control'));
      events.push(ev('purchase', `rc${i}`, `2026-04-05T10:${minute}:00.000Z`, { amount: 100 + i }));
      events.push(exposure(`rt${i}`, `2026-04-05T09:${minute}:30.000Z`, 'Cheaper Checkout', 'treatment'));
      events.push(ev('purchase', `rt${i}`, `2026-04-05T10:${minute}:30.000Z`, { amount: 10 + i }));
    }
    await send(events);
    at('2026-04-05T13:00:00.000Z');
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any, ...rest: any[]) => {
      lines.push(String(chunk));
      return write(chunk, ...rest);
    });
    const r = await refresh(id);
    expect(r.metrics.map((m: any) => [m.name, m.role, m.breached ?? null])).toEqual([
      ['signup', 'primary', null],
      ['Revenue', 'guardrail', true],
    ]);
    expect(r.metrics[1].comparisons[0].difference).toBeCloseTo(-90, 9);
    expect(r.guardrail_breached).toBe(true);
    const emf = lines.flatMap((l) => l.split('\n')).filter((l) => l.includes('"GuardrailBreached"') && l.includes('"_aws"'));
    for (const line of emf) expectWatchedByAlarm(line);
    expect(emf.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        _aws: expect.objectContaining({
          CloudWatchMetrics: [{ Namespace: 'Tally', Dimensions: [['FunctionName']], Metrics: [{ Name: 'GuardrailBreached', Unit: 'Count' }] }],
        }),
        FunctionName: 'local',
        GuardrailBreached: 1,
      }),
    ]);
  });
});
