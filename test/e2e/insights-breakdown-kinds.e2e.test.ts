/**
 * Trends' and funnels' breakdown lines carry a kind (issue 33, point 6; docs/api.md "Insights"), as
 * results' breakdowns do: a value sent as the text "other" or "unknown" is a line of its own (kind
 * "value"), never merged with the grouped rest (kind "other", always last) or with the events that
 * have no value (kind "unknown").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProject, type TestStack } from '../helpers/local';

const NOW = Date.parse('2026-04-15T12:00:00.000Z');
const RANGE = { date_from: '2026-04-14', date_to: '2026-04-14' };
let stack: TestStack;
let project: string;

// Five users send plan "other", four "unknown", three none, and ten one each of a..j.
const PLANS: Array<string | undefined> = [
  ...Array<string>(5).fill('other'),
  ...Array<string>(4).fill('unknown'),
  ...Array<undefined>(3).fill(undefined),
  ...'abcdefghij'.split(''),
];

// A tier for all but u0: t01..t10 two users each, t00 one (u11).
const tier = (i: number) => (i === 0 ? {} : { tier: `t${String(i % 11).padStart(2, '0')}` });

beforeAll(async () => {
  let key: string;
  ({ stack, project, key } = await startTestProject('breakdown-kinds', { clock: () => NOW }));
  const events = PLANS.flatMap((plan, i) => [
    { name: 'view', user_id: `u${i}`, timestamp: '2026-04-14T10:00:00Z', properties: { ...(plan === undefined ? {} : { plan }), ...tier(i) } },
    { name: 'signup', user_id: `u${i}`, timestamp: '2026-04-14T11:00:00Z' },
  ]);
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
});
afterAll(() => stack.stop());

// Ranked by count (ties by value): other 5, unknown 4, the missing 3, then a..g; h, i and j grouped, last.
const EXPECTED = [
  ['value', 'other', 5],
  ['value', 'unknown', 4],
  ['unknown', 'unknown', 3],
  ...'abcdefg'.split('').map((v) => ['value', v, 1]),
  ['other', 'other', 3],
];

describe('breakdown lines carry a kind', () => {
  it('trends: a value "other" or "unknown" is its own line; the grouped rest is kind "other", last', async () => {
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, {
      series: [{ event: 'view' }],
      ...RANGE,
      compare: false,
      breakdown: 'property',
      breakdown_property: 'plan',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.lines.map((l: any) => [l.breakdown_kind, l.breakdown_value, l.total])).toEqual(EXPECTED);
    // Beyond the top 10, the missing value stays its own line, before the grouped rest.
    const byTier = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, {
      series: [{ event: 'view' }],
      ...RANGE,
      compare: false,
      breakdown: 'property',
      breakdown_property: 'tier',
    });
    expect(byTier.body.result.lines.map((l: any) => [l.breakdown_kind, l.breakdown_value, l.total])).toEqual([
      ...Array.from({ length: 10 }, (_, i) => ['value', `t${String(i + 1).padStart(2, '0')}`, 2]),
      ['unknown', 'unknown', 1],
      ['other', 'other', 1],
    ]);
    const plain = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, { series: [{ event: 'view' }], ...RANGE });
    expect(plain.body.result.lines.map((l: any) => [l.breakdown_kind, l.breakdown_value])).toEqual([[null, null]]);
  });

  it('funnels: the same kinds, by users at the first step, after the totals', async () => {
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/funnels`, {
      steps: [{ event: 'view' }, { event: 'signup' }],
      ...RANGE,
      breakdown: 'property',
      breakdown_property: 'plan',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [total, ...groups] = res.body.result.groups;
    expect([total.breakdown_kind, total.breakdown_value, total.steps[0].users]).toEqual([null, null, PLANS.length]);
    expect(groups.map((g: any) => [g.breakdown_kind, g.breakdown_value, g.steps[1].users])).toEqual(EXPECTED);
  });
});
