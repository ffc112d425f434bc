/**
 * Variant weights through the local server (issue 23): set, checked and returned by the admin API,
 * fixed once started, published as the expanded list in both SDK-facing lists and used by the
 * server's own assignment, and the sample-ratio check of the results tests against them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { variantFor } from '../../lambdas/domain/bucketing';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('weights'));
});
afterAll(() => stack.stop());

const base = () => `/admin/v1/projects/${project}/experiments`;
async function get(path: string) {
  const res = await fetch(stack.url + path, { headers: { Authorization: `Bearer ${key}` } });
  return (await res.json()) as any;
}
const send = async (events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);

describe('weights in the admin API', () => {
  it('are equal (null) by default, returned as set, and each variant is listed once', async () => {
    const plain = await stack.admin('POST', base(), { name: 'Plain Split', goal_event: 'purchase' });
    expect(plain.body).toMatchObject({ variants: ['a', 'b'], weights: null });
    const weighted = await stack.admin('POST', base(), {
      name: 'Risky Treatment',
      goal_event: 'purchase',
      variants: ['control', 'treatment'],
      weights: [90, 10],
    });
    expect(weighted.status).toBe(201);
    expect(weighted.body).toMatchObject({ variants: ['control', 'treatment'], weights: [90, 10] });
    expect((await stack.admin('GET', `${base()}/${weighted.body.id}`)).body).toMatchObject({ variants: ['control', 'treatment'], weights: [90, 10] });
    const listed = (await stack.admin('GET', base())).body.experiments.find((e: any) => e.id === weighted.body.id);
    expect(listed).toMatchObject({ variants: ['control', 'treatment'], weights: [90, 10] });
  });

  it.each([
    [{ variants: ['a', 'b'], weights: [60, 30] }, 'weights: weights must sum to 100, got 90'],
    [{ variants: ['a', 'b', 'c'], weights: [50, 50] }, 'weights: weights has 2 entries but variants has 3'],
    [{ weights: [99.5, 0.5] }, 'weights.0: weights must be whole percentages'],
    [{ weights: [100, 0] }, 'weights: every weight must be at least 1 (variant "b" has 0)'],
    [{ weights: '90/10' }, 'weights: weights must be an array of whole percentages'],
  ])('refuses %j with a 400 naming the rule', async (fields, message) => {
    const res = await stack.admin('POST', base(), { name: `Bad ${JSON.stringify(fields)}`, goal_event: 'purchase', ...fields });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
  });

  it('are edited while created, must still fit changed variants, and are fixed once started (409)', async () => {
    const created = await stack.admin('POST', base(), { name: 'Editable Weights', goal_event: 'purchase', variants: ['a', 'b'] });
    const path = `${base()}/${created.body.id}`;
    expect((await stack.admin('PATCH', path, { weights: [70, 30] })).body).toMatchObject({ weights: [70, 30] });
    const misfit = await stack.admin('PATCH', path, { variants: ['a', 'b', 'c'] });
    expect(misfit.status).toBe(400);
    expect(misfit.body.error).toContain('weights has 2 entries but variants has 3');
    expect((await stack.admin('PATCH', path, { variants: ['a', 'b', 'c'], weights: [20, 30, 50] })).body).toMatchObject({ weights: [20, 30, 50] });
    expect((await stack.admin('PATCH', path, { weights: null })).body).toMatchObject({ weights: null });
    expect((await stack.admin('PATCH', path, { weights: [20, 30, 50] })).status).toBe(200);
    await stack.admin('POST', `${path}/start`);
    const refused = await stack.admin('PATCH', path, { weights: [34, 33, 33] });
    expect(refused.status).toBe(409);
    expect((await stack.admin('GET', path)).body.weights).toEqual([20, 30, 50]);
  });
});

describe('weights as the SDKs see them', () => {
  it('publish the expanded list in configs and the legacy list, and the server assigns from the same list', async () => {
    const created = await stack.admin('POST', base(), {
      name: 'Published Weights',
      goal_event: 'purchase',
      variants: ['control', 'treatment'],
      weights: [90, 10],
    });
    const id = created.body.id as string;
    await stack.admin('POST', `${base()}/${id}/start`);
    const expanded = [...Array(9).fill('control'), 'treatment'];
    expect((await get('/v1/experiments/configs')).experiments).toContainEqual({ id, name: 'Published Weights', variants: expanded });
    expect((await get('/v1/experiments')).experiments).toContainEqual({ id, variants: expanded });
    const counts = { control: 0, treatment: 0 };
    for (let i = 0; i < 200; i++) {
      const assigned = (await get(`/v1/experiments?anonymous_id=weighted-${i}`)).assigned_variants['Published Weights'] as 'control' | 'treatment';
      expect(assigned).toBe(variantFor(id, `weighted-${i}`, expanded));
      counts[assigned]++;
    }
    // 200 draws at 10%: treatment between 5 and 40 is far inside any sampling error (and 50/50 would give ~100).
    expect(counts.treatment).toBeGreaterThan(5);
    expect(counts.treatment).toBeLessThan(40);
  });

  it('the sample-ratio check flags a 90/10 experiment enrolled 50/50 and passes one enrolled 90/10', async () => {
    const srm = async (name: string, control: number, treatment: number) => {
      const created = await stack.admin('POST', base(), { name, goal_event: 'purchase', variants: ['control', 'treatment'], weights: [90, 10] });
      const started = await stack.admin('POST', `${base()}/${created.body.id}/start`);
      const at = new Date(Date.parse(started.body.started_at) + 1).toISOString();
      const exposure = (variant: string) => (i: number) => ({
        name: '$experiment_exposure',
        user_id: `${name}-${variant}-${i}`,
        timestamp: at,
        properties: { $experiment_name: name, $variant: variant },
      });
      const events = [
        ...Array.from({ length: control }, (_, i) => exposure('control')(i)),
        ...Array.from({ length: treatment }, (_, i) => exposure('treatment')(i)),
      ];
      for (let i = 0; i < events.length; i += 100) await send(events.slice(i, i + 100));
      const results = (await stack.admin('POST', `${base()}/${created.body.id}/results/refresh`)).body;
      expect(results.variants.map((v: any) => v.enrolled)).toEqual([control, treatment]);
      return results.srm as { flagged: boolean; p_value: number };
    };
    expect((await srm('Enrolled Evenly', 100, 100)).flagged).toBe(true);
    const fine = await srm('Enrolled As Weighted', 180, 20);
    expect(fine.flagged).toBe(false);
    expect(fine.p_value).toBeCloseTo(1, 6); // exactly the weights: chi-square 0
  });
});
