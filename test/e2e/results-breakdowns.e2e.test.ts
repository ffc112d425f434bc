/**
 * Breakdowns in the results (issue 22, "Breakdowns"; docs/decisions/breakdowns.md) through the local
 * stack: exposures and goal events over HTTP with the platform and app version each event carries,
 * results through POST .../results/refresh (the incremental count) and GET .../results. Counted by
 * hand: seven platforms (the five with the most enrolled users shown, ties by value, the other two
 * summed into "other"), users who sent no platform ("unknown"), a user whose later exposure names
 * another platform (stays in the platform of the first), and Holm's correction across the segments
 * of one dimension.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holm } from '../../lambdas/domain/p-value-correction';
import { startTestProject, type TestStack } from '../helpers/local';

let now = Date.parse('2026-04-01T09:00:00.000Z');
let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('results-breakdowns', { clock: () => now }));
});
afterAll(() => stack.stop());

const at = (iso: string) => (now = Date.parse(iso));
const base = () => `/admin/v1/projects/${project}/experiments`;

/** [user, variant, platform (undefined: none sent), converts] */
type User = [string, 'control' | 'treatment', string | undefined, boolean];
const USERS: User[] = [
  // ios: 7 users (control 3, 2 convert; treatment 4, 3 convert)
  ['i1', 'control', 'ios', true],
  ['i2', 'control', 'ios', true],
  ['i3', 'control', 'ios', false],
  ['i4', 'treatment', 'ios', true],
  ['i5', 'treatment', 'ios', true],
  ['i6', 'treatment', 'ios', false],
  ['i7', 'treatment', 'ios', true],
  // android: 5 (control 3, 1 converts; treatment 2, 1 converts)
  ['a1', 'control', 'android', true],
  ['a2', 'control', 'android', false],
  ['a5', 'control', 'android', false],
  ['a3', 'treatment', 'android', true],
  ['a4', 'treatment', 'android', false],
  // web: 3 (control 1; treatment 2, 1 converts)
  ['w1', 'control', 'web', false],
  ['w2', 'treatment', 'web', true],
  ['w3', 'treatment', 'web', false],
  // macos and windows: 2 each (the tie at the fifth place goes by value: both shown, macos first)
  ['m1', 'control', 'macos', true],
  ['m2', 'treatment', 'macos', false],
  ['x1', 'control', 'windows', false],
  ['x2', 'treatment', 'windows', true],
  // linux and tvos: 1 each, folded into "other"
  ['l1', 'control', 'linux', true],
  ['t1', 'treatment', 'tvos', true],
  // no platform: "unknown"
  ['u1', 'control', undefined, false],
  ['u2', 'treatment', undefined, true],
  ['u3', 'treatment', undefined, true],
];

describe('breakdowns in the results', () => {
  it('splits the primary metric by platform: top 5 values, "other", "unknown", the first enrollment decides, Holm across the segments', async () => {
    const id = randomUUID();
    await stack.deps.experiments.create({
      id,
      project_id: project,
      name: 'Checkout Breakdown',
      variants: ['control', 'treatment'],
      weights: null,
      goal_event: 'signup',
      description: null,
      status: 'created',
      created_at: new Date(now).toISOString(),
      started_at: null,
      stopped_at: null,
      // Fixed-horizon tests, so these small segments get p-values.
      sequential: false,
      correction: 'holm',
    });
    at('2026-04-01T10:00:00.000Z');
    expect((await stack.admin('POST', `${base()}/${id}/start`)).status).toBe(200);
    at('2026-04-01T14:00:00.000Z');
    const events = USERS.flatMap(([user, variant, platform, converts], i) => {
      const minute = String(i).padStart(2, '0');
      return [
        {
          name: '$experiment_exposure',
          user_id: user,
          timestamp: `2026-04-01T11:${minute}:00.000Z`,
          properties: { $experiment_name: 'Checkout Breakdown', $variant: variant },
          ...(platform ? { platform, app_version: '2.0.0' } : {}),
        },
        ...(converts ? [{ name: 'signup', user_id: user, timestamp: `2026-04-01T12:${minute}:00.000Z`, ...(platform ? { platform } : {}) }] : []),
      ];
    });
    // i1 enrolls again later from another platform: it stays an ios user.
    events.push({
      name: '$experiment_exposure',
      user_id: 'i1',
      timestamp: '2026-04-01T13:00:00.000Z',
      properties: { $experiment_name: 'Checkout Breakdown', $variant: 'control' },
      platform: 'android',
    });
    expect((await stack.post('/v1/events', key, { events })).status).toBe(204);

    at('2026-04-01T15:00:00.000Z');
    const refreshed = await stack.admin('POST', `${base()}/${id}/results/refresh`);
    expect(refreshed.status).toBe(200);
    const got = await stack.admin('GET', `${base()}/${id}/results`);
    expect(got.status).toBe(200);
    expect(got.body.breakdowns).toEqual(refreshed.body.breakdowns);

    const platform = got.body.breakdowns.find((b: any) => b.dimension === 'platform');
    const shape = platform.segments.map((s: any) => [s.value, s.kind, ...s.variants.map((v: any) => [v.variant, v.users, v.conversions])]);
    expect(shape).toEqual([
      ['ios', 'value', ['control', 3, 2], ['treatment', 4, 3]],
      ['android', 'value', ['control', 3, 1], ['treatment', 2, 1]],
      ['web', 'value', ['control', 1, 0], ['treatment', 2, 1]],
      ['macos', 'value', ['control', 1, 1], ['treatment', 1, 0]],
      ['windows', 'value', ['control', 1, 0], ['treatment', 1, 1]],
      ['other', 'other', ['control', 1, 1], ['treatment', 1, 1]],
      ['unknown', 'unknown', ['control', 1, 0], ['treatment', 2, 2]],
    ]);
    // Means are the conversion rates.
    expect(platform.segments[0].variants.map((v: any) => v.mean)).toEqual([2 / 3, 3 / 4]);
    // Holm over the dimension's comparisons (treatment against control in each segment): ios and
    // android have a p-value (both variants' conversions vary), the others none (as in gbstats).
    const comparisons = platform.segments.map((s: any) => s.comparisons[0]);
    expect(comparisons.every((c: any) => c.variant === 'treatment')).toBe(true);
    const pValues = comparisons.map((c: any) => c.p_value);
    expect(pValues.map((p: number | null) => p !== null)).toEqual([true, true, false, false, false, false, false]);
    const expected = holm(pValues.filter((p: number | null): p is number => p !== null));
    expect(comparisons.filter((c: any) => c.p_value !== null).map((c: any) => c.adjusted_p_value)).toEqual(expected);
    // Corrected across the two: the smaller p-value is doubled (Holm's first step, at most 1), so above the raw one.
    const smaller = comparisons[0].p_value < comparisons[1].p_value ? comparisons[0] : comparisons[1];
    expect(smaller.adjusted_p_value).toBeCloseTo(Math.min(1, 2 * smaller.p_value), 12);
    expect(smaller.adjusted_p_value).toBeGreaterThan(smaller.p_value);
    // app_version: 21 users sent 2.0.0, the 3 without a platform sent none.
    const appVersion = got.body.breakdowns.find((b: any) => b.dimension === 'app_version');
    expect(appVersion.segments.map((s: any) => [s.value, s.kind, s.variants.reduce((n: number, v: any) => n + v.users, 0)])).toEqual([
      ['2.0.0', 'value', 21],
      ['unknown', 'unknown', 3],
    ]);
    // Every dimension covers every enrolled user once.
    for (const b of got.body.breakdowns) {
      expect(b.segments.reduce((n: number, s: any) => n + s.variants.reduce((m: number, v: any) => m + v.users, 0), 0)).toBe(USERS.length);
    }
  });
});
