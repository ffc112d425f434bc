/**
 * Property-based tests of every analysis (issue 33, "Tests that find the next one"; docs/development.md
 * "Property-based tests"), with fast-check through the local server: generated events whose property
 * carries hostile values (numbers beyond a double or whose square is, "Infinity", "NaN", hex, numbers
 * as text, NUL, words, objects), a generated property name (JSON-path syntax, quotes, backslashes,
 * control characters, NUL, half an emoji, empty) and generated numeric settings (a metric's kind and
 * cap, the planner's minimum detectable effect), run through an experiment's results (conversion,
 * count or sum metric), every insight kind (trends with every measure and a property breakdown,
 * funnels with a property filter and breakdown, retention) and the planner. Each answer must be an
 * answer or a 4xx that names the field, never a 5xx or a hang (the test timeout), and the figures must
 * be what the numeric rule (lambdas/domain/numeric-rule.ts) predicts: never NaN, Infinity or a silent 0.
 *
 * Reproducible: the seed is fixed (TALLY_PROPERTY_SEED overrides it, TALLY_PROPERTY_RUNS the number of
 * runs); on a failure fast-check prints the seed, the path and the smallest counterexample. Each
 * failure found this way becomes a named example in test/e2e/hostile-properties.e2e.test.ts.
 */
import { isSensibleCap } from '../../lambdas/domain/experiment-metric-fields';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleNumber } from '../../lambdas/domain/numeric-rule';
import { propertyNameProblem } from '../../lambdas/domain/property-name';
import { startTestStack, UNTHROTTLED_KEY, type TestStack } from '../helpers/local';

const SEED = Number(process.env.TALLY_PROPERTY_SEED ?? 33);
const RUNS = Number(process.env.TALLY_PROPERTY_RUNS ?? 15);

const T0 = Date.parse('2026-04-10T00:00:00.000Z');
const DAY = '2026-04-10';
let now = T0;
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ clock: () => now });
});
afterAll(() => stack?.stop());

// ---------------------------------------------------------------------------------------------
// What is generated.

const HOSTILE_NAMES = ['*', '[*]', '..', '$', '$.a', 'a.b', 'a"b', '\\', '\\"', '~/', 'other', 'unknown', '', ' ', '\u0001', 'a\u0000b', '\ud800', 'é'];
// Weighted toward the hostile ones, so a few runs reach them (the runs are few to fit the time budget).
const name = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_NAMES), weight: 3 },
  fc.string({ unit: fc.constantFrom('a', 'b', '*', '.', '[', ']', '"', "'", '\\', '$', '~', '/', ' ', 'é', '\u0001'), minLength: 1, maxLength: 6 }),
);
const HOSTILE_NUMBERS = ['1e400', '-1e400', 'Infinity', '-Infinity', 'NaN', '0x10', '1e200', '1e15', '-1e15', '1e16', ' 1', '1.', '.5', '+1', '12.50', '-0'];
const value = fc.oneof(
  fc.double(), // NaN and ±Infinity included: JSON sends them as null
  fc.integer(),
  { arbitrary: fc.constantFrom(1e200, -1e200, 1e15, 1e16, 5e-324, -0), weight: 2 },
  { arbitrary: fc.constantFrom(...HOSTILE_NUMBERS), weight: 3 },
  fc.string({ unit: fc.constantFrom('1', '0', '9', 'e', 'E', '.', '-', '+', 'x', ' ', '\u0000'), maxLength: 8 }),
  fc.constantFrom(true, null, { nested: 1 }, [1, 2], 'free', '\u0000'),
);
const event = fc.record({ user: fc.integer({ min: 0, max: 5 }), minute: fc.integer({ min: 0, max: 59 }), carries: fc.boolean(), value });
const settings = fc.record({
  kind: fc.oneof({ arbitrary: fc.constant('sum'), weight: 2 }, fc.constantFrom('conversion', 'count')),
  // Caps on both sides of their bounds (0.5 to 0.9999: refused below), and the effects a team sets;
  // the extremes (1e-200, alpha 1e-17, …) are the bounds' own tests.
  cap: fc.option(fc.double({ min: 0.01, max: 0.99, noNaN: true }), { nil: undefined }),
  mde: fc.double({ min: 0.05, max: 5, noNaN: true }),
});

// ---------------------------------------------------------------------------------------------
// What every answer must be.

type Answer = { status: number; body: any };

/** An answer (2xx), or a 4xx whose error names a field (a 400's "path: message"); never a 5xx. */
function acceptable(what: string, res: Answer, field?: RegExp): boolean {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
  if (res.status < 300) return true;
  expect(typeof res.body?.error, what).toBe('string');
  if (res.status === 400) expect(res.body.error, what).toMatch(field ?? /^[\w.]+: /);
  return false;
}

/** Close enough for sums the engine adds in another order: relative to the sum of magnitudes. */
function expectSum(what: string, actual: unknown, expected: number, magnitude: number) {
  expect(typeof actual, what).toBe('number');
  expect(Math.abs((actual as number) - expected), `${what}: ${String(actual)} vs ${expected}`).toBeLessThanOrEqual(1e-9 * magnitude + 1e-9);
}

// ---------------------------------------------------------------------------------------------

describe(`every analysis over generated properties (fast-check, seed ${SEED}, ${RUNS} runs)`, () => {
  it('answers or refuses naming the field; figures as the numeric rule predicts', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(name, fc.array(event, { minLength: 1, maxLength: 12 }), settings, async (property, events, setting) => {
        run++;
        now = T0;
        const project = await stack.createProject(`property run ${run}`);
        const key = await stack.createKey(project, UNTHROTTLED_KEY);
        const base = `/admin/v1/projects/${project}`;
        const readable = propertyNameProblem('property', property) === undefined;

        // The experiment: a metric of the generated kind and cap on the property (sum) or the event.
        const metric = { name: 'M', event: 'purchase', kind: setting.kind, role: 'secondary', ...(setting.cap === undefined ? {} : { cap: setting.cap }) };
        const created = await stack.admin('POST', `${base}/experiments`, {
          name: 'E',
          goal_event: 'signup',
          metrics: [setting.kind === 'sum' ? { ...metric, property } : metric],
        });
        const capRefused = setting.cap !== undefined && !isSensibleCap(setting.cap);
        if (!acceptable('experiment', created, /^metrics\.0\.(property|cap): /)) {
          // Refused only for a reason the request has: a property no engine reads, or a cap out of its bounds.
          expect((setting.kind === 'sum' && !readable) || capRefused, JSON.stringify(created.body)).toBe(true);
          return;
        }
        expect(capRefused, 'a cap out of its bounds is refused').toBe(false);
        expect((await stack.admin('POST', `${base}/experiments/${created.body.id}/start`)).status).toBe(200);

        // The events: every user exposed at 00:30, then purchases carrying the property (or not).
        now = T0 + 12 * 3_600_000;
        const users = [...new Set(events.map((e) => e.user))];
        const batch = [
          ...users.map((u) => ({
            name: '$experiment_exposure',
            user_id: `u${u}`,
            timestamp: `${DAY}T00:30:00.000Z`,
            properties: { $experiment_name: 'E', $variant: u % 2 ? 'b' : 'a' },
          })),
          // One second per event, so no two are the same event (same name, user and time: deduplicated).
          ...events.map((e, i) => ({
            name: 'purchase',
            user_id: `u${e.user}`,
            timestamp: `${DAY}T01:${String(e.minute).padStart(2, '0')}:${String(i).padStart(2, '0')}.000Z`,
            properties: e.carries ? { [property]: e.value } : {},
          })),
        ];
        const sent = await stack.post('/v1/events', key, { events: batch });
        if (sent.status !== 204) {
          // Only what no event may carry is refused: a key with NUL or half an emoji, with the place named.
          expect(sent.status, sent.text).toBe(400);
          expect(sent.text).toMatch(/properties/);
          expect(readable && !events.some((e) => e.carries && typeof e.value === 'string' && e.value.includes('\ud800'))).toBe(false);
          return;
        }

        // What the numeric rule predicts.
        const numbers = events.map((e) => (e.carries ? ruleNumber(JSON.parse(JSON.stringify({ v: e.value })).v) : null));
        const magnitude = numbers.reduce<number>((n, v) => n + Math.abs(v ?? 0), 0);
        const numeric = numbers.filter((v): v is number => v !== null);
        const total = numeric.reduce((n, v) => n + v, 0);

        // Results: the refresh answers, and an uncapped sum metric's means are the rule's.
        const results = await stack.admin('POST', `${base}/experiments/${created.body.id}/results/refresh`);
        acceptable('results', results);
        expect(results.status).toBe(200);
        const m = results.body.metrics.find((x: any) => x.name === 'M');
        expect(m.unavailable).toBeUndefined();
        for (const v of m.variants) if (v.users > 0) expect(v.mean, 'a mean with users').not.toBeNull();
        if (setting.kind === 'sum' && setting.cap === undefined) {
          for (const v of m.variants) {
            const mine = events.map((e, i) => [e, numbers[i]] as const).filter(([e]) => (e.user % 2 ? 'b' : 'a') === v.variant);
            const sum = mine.reduce((n, [, x]) => n + (x ?? 0), 0);
            if (v.users > 0) expectSum(`results mean of ${v.variant}`, v.mean * v.users, sum, magnitude);
          }
        }

        // Trends: events, users, sum and average of the property, broken down by it.
        const trends = await stack.admin('POST', `${base}/insights/trends`, {
          series: [{ event: 'purchase' }, { event: 'purchase', measure: 'sum', property }, { event: 'purchase', measure: 'average', property }],
          date_from: DAY,
          date_to: DAY,
          compare: false,
          breakdown: 'property',
          breakdown_property: property,
        });
        if (acceptable('trends', trends, /^(series\.\d\.property|breakdown_property): /)) {
          const lines = trends.body.result.lines as any[];
          const sumOf = (series: number, field: string) => lines.filter((l) => l.series === series).reduce((n, l) => n + l[field], 0);
          expect(sumOf(0, 'total')).toBe(events.length);
          expectSum('trends sum', sumOf(1, 'total'), total, magnitude);
          const averages = lines.filter((l) => l.series === 2);
          // Each breakdown line's average is over its numeric values: none is a number where the rule reads none.
          for (const l of averages) if (l.total !== null) expect(Number.isFinite(l.total)).toBe(true);
          if (numeric.length === 0) expect(averages.every((l) => l.total === null)).toBe(true);
          for (const l of lines) expect(['value', 'other', 'unknown']).toContain(l.breakdown_kind);
        } else expect(readable).toBe(false);

        // Funnels: exposure, then a purchase whose property equals the first event's value as text.
        const equals = typeof events[0]!.value === 'string' ? events[0]!.value : JSON.stringify(events[0]!.value ?? null);
        const funnels = await stack.admin('POST', `${base}/insights/funnels`, {
          steps: [{ event: '$experiment_exposure' }, { event: 'purchase', where: { property, equals: equals.slice(0, 200) } }],
          date_from: DAY,
          date_to: DAY,
          breakdown: 'property',
          breakdown_property: property,
        });
        if (acceptable('funnels', funnels, /^(steps\.1\.where\.(property|equals)|breakdown_property): /)) {
          expect(funnels.body.result.groups[0].steps[0].users).toBe(users.length);
        }

        // Retention: those who came back to buy.
        const retention = await stack.admin('POST', `${base}/insights/retention`, {
          start_event: '$experiment_exposure',
          return_event: 'purchase',
          date_from: DAY,
          date_to: DAY,
        });
        acceptable('retention', retention);
        expect(retention.status).toBe(200);

        // The planner: the metric's kind on the property, and the generated effect.
        const plan = await stack.admin('POST', `${base}/plan`, {
          metric: { event: 'purchase', kind: setting.kind, ...(setting.kind === 'sum' ? { property } : {}) },
          mde: setting.mde,
        });
        if (acceptable('plan', plan, /^metric\.property: /) && setting.kind === 'sum') {
          // Per active user (every user was exposed): the rule's total over the users.
          expectSum('plan baseline mean', plan.body.baseline.mean * users.length, total, magnitude);
          expect(Number.isFinite(plan.body.baseline.variance)).toBe(true);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
