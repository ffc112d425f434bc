/**
 * Property values and property names a client or an operator can send, through the local server
 * (issue 33, points 2 and 3; docs/api.md "The numeric rule" and "Property names"):
 *  - numbers that are not finite doubles after conversion ("1e400", "Infinity", "NaN", "0x10") or
 *    whose square overflows (the plain number 1e200) are not numbers for any analysis: the experiment's
 *    sum metric, trends' sum and average and the planner read every other value, and never answer 500
 *    or a silent 0;
 *  - a property named with JSON-path syntax (`*`, `[*]`, `..`, `$`, quotes) is read literally, the
 *    same key on both engines, by every analysis that names a property.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProject, type TestStack } from '../helpers/local';

let now = Date.parse('2026-04-10T09:00:00.000Z');
let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('hostile-properties', { clock: () => now }));
});
afterAll(() => stack.stop());

const RANGE = { date_from: '2026-04-10', date_to: '2026-04-10', compare: false };
/** Sends at 12:00 on the 10th: after the day's events, which the experiments started at 09:00 count. */
const send = async (events: unknown[]) => {
  now = Date.parse('2026-04-10T12:00:00.000Z');
  const res = await stack.post('/v1/events', key, { events });
  expect(res.status, res.text).toBe(204);
};
const exposure = (user: string, variant: string, experiment: string) => ({
  name: '$experiment_exposure',
  user_id: user,
  timestamp: '2026-04-10T10:00:00.000Z',
  properties: { $experiment_name: experiment, $variant: variant },
});
const purchase = (user: string, properties: Record<string, unknown>, minute = 0) => ({
  name: 'purchase',
  user_id: user,
  timestamp: `2026-04-10T11:${String(minute).padStart(2, '0')}:00.000Z`,
  properties,
});
const experiments = () => `/admin/v1/projects/${project}/experiments`;

/** Creates and starts an experiment over the API, at 09:00 on the 10th. */
async function startExperiment(name: string, metrics: unknown[]): Promise<string> {
  now = Date.parse('2026-04-10T09:00:00.000Z');
  const created = await stack.admin('POST', experiments(), { name, goal_event: 'signup', metrics });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const started = await stack.admin('POST', `${experiments()}/${created.body.id}/start`);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return created.body.id as string;
}

async function refresh(id: string) {
  now = Date.parse('2026-04-10T12:00:01.000Z');
  const res = await stack.admin('POST', `${experiments()}/${id}/results/refresh`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const meanOf = (results: any, metric: string) =>
  Object.fromEntries(results.metrics.find((m: any) => m.name === metric).variants.map((v: any) => [v.variant, [v.users, v.mean]]));

describe('the numeric rule: values that are not finite doubles are not numbers', () => {
  it('a sum metric reads the numbers and counts "1e400", 1e200, "Infinity", "NaN" and "0x10" as no value: results answer, every figure finite', async () => {
    const id = await startExperiment('Numbers', [{ name: 'Revenue', event: 'purchase', kind: 'sum', property: 'revenue', role: 'secondary' }]);
    await send([
      exposure('n1', 'a', 'Numbers'),
      exposure('n2', 'a', 'Numbers'),
      exposure('n3', 'b', 'Numbers'),
      exposure('n4', 'b', 'Numbers'),
      purchase('n1', { revenue: 10 }),
      purchase('n1', { revenue: '1e400' }, 1),
      purchase('n2', { revenue: 1e200 }),
      purchase('n2', { revenue: 'Infinity' }, 1),
      purchase('n3', { revenue: 'NaN' }),
      purchase('n3', { revenue: '0x10' }, 1),
      purchase('n3', { revenue: '4' }, 2),
      purchase('n4', { revenue: -1e16 }),
      purchase('n4', { revenue: 2 }, 1),
    ]);
    const results = await refresh(id);
    // control: n1 10, n2 0 (1e200 is beyond the bound, "Infinity" is not a number); treatment: n3 4, n4 2.
    expect(meanOf(results, 'Revenue')).toEqual({ a: [2, 5], b: [2, 3] });
    const revenue = results.metrics.find((m: any) => m.name === 'Revenue');
    expect(revenue.unavailable).toBeUndefined();
    for (const c of revenue.comparisons) for (const v of Object.values(c)) if (typeof v === 'number') expect(Number.isFinite(v)).toBe(true);
    // The scheduled job computes it too, and GET answers the stored results.
    expect((await stack.admin('GET', `${experiments()}/${id}/results`)).status).toBe(200);
  });

  it("trends' sum and average read the numbers only: not zeros, not Infinity", async () => {
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, {
      series: [
        { event: 'purchase', measure: 'sum', property: 'revenue' },
        { event: 'purchase', measure: 'average', property: 'revenue' },
      ],
      ...RANGE,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [sum, average] = res.body.result.lines;
    // 10, 4 and 2 are numbers; "1e400", 1e200, -1e16, "Infinity", "NaN" and "0x10" are not.
    expect(sum.total).toBe(16);
    expect(sum.values).toEqual([16]);
    expect(average.total).toBeCloseTo(16 / 3, 12);
  });

  it('the planner reads the numbers only: a plan, not a 500', async () => {
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/plan`, { metric: { event: 'purchase', kind: 'sum', property: 'revenue' }, mde: 0.5 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Number.isFinite(res.body.baseline.mean)).toBe(true);
    expect(Number.isFinite(res.body.baseline.variance)).toBe(true);
    // Active users n1..n4 (the exposures count as activity): sums 10, 0, 4, 2.
    expect(res.body.baseline.mean).toBeCloseTo(16 / 4, 12);
  });
});

describe('property names are read literally, whatever they look like', () => {
  const NAMES = ['*', '[*]', '..', '$', 'a.b', 'a[0]', "it's", ' ', '/~'];

  it('an experiment sums a property named with JSON-path syntax, and its results answer', async () => {
    const id = await startExperiment(
      'Names',
      NAMES.map((property, i) => ({ name: `Metric ${i}`, event: 'purchase', kind: 'sum', property, role: 'secondary' })),
    );
    // Each name i carries i + 1 on m1's purchase, and the decoys that a wildcard or a path would read.
    await send([
      exposure('m1', 'a', 'Names'),
      exposure('m2', 'b', 'Names'),
      purchase('m1', { ...Object.fromEntries(NAMES.map((n, i) => [n, i + 1])), a: { b: 100 }, x: 1000 }),
      purchase('m2', { a: { b: 100 }, x: 1000 }),
    ]);
    const results = await refresh(id);
    NAMES.forEach((_, i) => expect(meanOf(results, `Metric ${i}`)).toEqual({ a: [1, i + 1], b: [1, 0] }));
  });

  it('trends sum, and break down by, such properties', async () => {
    // At most 5 series a request: the names in two.
    for (const names of [NAMES.slice(0, 5), NAMES.slice(5)]) {
      const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, {
        series: names.map((property) => ({ event: 'purchase', measure: 'sum', property })),
        ...RANGE,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.result.lines.map((l: any) => l.total)).toEqual(names.map((n) => NAMES.indexOf(n) + 1));
    }
    const byStar = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, {
      series: [{ event: 'purchase' }],
      ...RANGE,
      breakdown: 'property',
      breakdown_property: '[*]',
    });
    expect(byStar.status, JSON.stringify(byStar.body)).toBe(200);
    expect(byStar.body.result.lines.find((l: any) => l.breakdown_value === '2')?.total).toBe(1);
  });

  it('funnels filter and break down by such properties', async () => {
    await send([{ name: 'signup', user_id: 'm1', timestamp: '2026-04-10T11:30:00.000Z' }]);
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/funnels`, {
      steps: [{ event: 'purchase', where: { property: '*', equals: '1' } }, { event: 'signup' }],
      date_from: '2026-04-10',
      date_to: '2026-04-10',
      breakdown: 'property',
      breakdown_property: 'a[0]',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [total, ...groups] = res.body.result.groups;
    expect(total.steps.map((s: any) => s.users)).toEqual([1, 1]);
    expect(groups.map((g: any) => [g.breakdown_value, g.steps.map((s: any) => s.users)])).toEqual([['6', [1, 1]]]);
  });

  it('the planner sums such a property', async () => {
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/plan`, { metric: { event: 'purchase', kind: 'sum', property: '*' }, mde: 0.5 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.metric.property).toBe('*');
    expect(res.body.baseline.mean).toBeGreaterThan(0);
  });

  it('refuses, with a 400 naming the field and saying what is allowed, a name with a quote or a backslash, or one no event key can be', async () => {
    for (const property of ['a"b', 'back\\slash']) {
      const metric = await stack.admin('POST', experiments(), {
        name: `Refused ${property}`,
        goal_event: 'signup',
        metrics: [{ name: 'M', event: 'purchase', kind: 'sum', property, role: 'secondary' }],
      });
      expect(metric.status).toBe(400);
      expect(metric.body.error).toMatch(
        /^metrics\.0\.property: property must not contain a double quote \("\) or a backslash .* every other character is read literally/,
      );
    }
    const res = await stack.admin('POST', `/admin/v1/projects/${project}/insights/trends`, {
      series: [{ event: 'purchase', measure: 'sum', property: 'a\u0000b' }],
      ...RANGE,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/series\.0\.property: property contains U\+0000/);
    const plan = await stack.admin('POST', `/admin/v1/projects/${project}/plan`, { metric: { event: 'purchase', kind: 'sum', property: '' }, mde: 0.5 });
    expect(plan.status).toBe(400);
    expect(plan.body.error).toMatch(/metric\.property/);
  });
});
