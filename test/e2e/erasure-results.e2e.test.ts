/**
 * Results computed before a person's deletion are computed again without them (docs/privacy.md, "What
 * is removed"): an experiment's results counted with Ann (enrolled on her phone, converting after
 * signing in), her deletion carried out by the compaction run, and the next refresh, the stored
 * results and the job's state all count the experiment as if she had never been there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProject, type TestStack } from '../helpers/local';

let now = Date.parse('2026-05-04T09:00:00.000Z');
let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('erasure-results', { clock: () => now }));
});
afterAll(() => stack.stop());

const base = () => `/admin/v1/projects/${project}/experiments`;
const send = async (events: unknown[]) => expect((await stack.post('/v1/events', key, { events })).status).toBe(204);
const shape = (r: { variants: Array<{ variant: string; enrolled: number; converted: number }> }) => r.variants.map((v) => [v.variant, v.enrolled, v.converted]);

describe("a deleted person's experiment results", () => {
  it('are computed again without the person; everyone else counts as before', async () => {
    const created = await stack.admin('POST', base(), { name: 'Checkout', goal_event: 'purchase', variants: ['control', 'treatment'] });
    const id = created.body.id as string;
    const started = await stack.admin('POST', `${base()}/${id}/start`);
    const t0 = Date.parse(started.body.started_at);
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    const exposure = (user: string, variant: string, ms: number) => ({
      name: '$experiment_exposure',
      user_id: user,
      timestamp: at(ms),
      properties: { $experiment_name: 'Checkout', $variant: variant },
    });
    // Ann enrolls on her phone in control, signs in, and buys as herself; four others.
    await send([
      exposure('ann-phone', 'control', 1_000),
      { name: '$identify', user_id: 'ann', timestamp: at(2_000), properties: { $anonymous_id: 'ann-phone', email: 'ann@example.com' } },
      { name: 'purchase', user_id: 'ann', timestamp: at(3_000) },
      exposure('c1', 'control', 1_000),
      exposure('c2', 'control', 1_000),
      { name: 'purchase', user_id: 'c1', timestamp: at(3_000) },
      exposure('t1', 'treatment', 1_000),
      exposure('t2', 'treatment', 1_000),
      { name: 'purchase', user_id: 't1', timestamp: at(3_000) },
    ]);
    now = t0 + 60_000;
    const before = await stack.admin('POST', `${base()}/${id}/results/refresh`);
    expect(before.status).toBe(200);
    expect(shape(before.body)).toEqual([
      ['control', 3, 2],
      ['treatment', 2, 1],
    ]);

    const asked = await stack.admin('POST', `/admin/v1/projects/${project}/deletions`, { user_id: 'ann' });
    expect(asked.status).toBe(202);
    await stack.compaction.runNow();
    const deletion = await stack.admin('GET', `/admin/v1/projects/${project}/deletions/${asked.body.deletion.id}`);
    expect(deletion.body.deletion).toMatchObject({ state: 'done', ids: ['ann', 'ann-phone'] });

    // The stored results are gone with the job's state: none shows her until the next computation ...
    const stored = await stack.admin('GET', `${base()}/${id}/results`);
    expect(stored.status).toBe(404);
    expect(stored.body.error).toMatch(/No results computed yet/);
    // ... and the next computation counts everyone else as before, without her.
    now += 60_000;
    const after = await stack.admin('POST', `${base()}/${id}/results/refresh`);
    expect(after.status).toBe(200);
    expect(shape(after.body)).toEqual([
      ['control', 2, 1],
      ['treatment', 2, 1],
    ]);
    expect(shape((await stack.admin('GET', `${base()}/${id}/results`)).body)).toEqual(shape(after.body));
  });
});
