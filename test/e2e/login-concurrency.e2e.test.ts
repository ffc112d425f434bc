/**
 * The spec's promise: a user bucketed while anonymous keeps that variant after login, whatever order
 * concurrent requests arrive and commit in.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { variantFor } from '../../lambdas/domain/bucketing';
import { startTestProject, type TestStack } from '../helpers/local';

let stack: TestStack;
let key: string;
let experiment: { id: string; name: string; variants: string[] };

beforeAll(async () => {
  let project: string;
  ({ stack, project, key } = await startTestProject('login concurrency'));
  const created = await stack.admin('POST', `/admin/v1/projects/${project}/experiments`, { name: 'hero', goal_event: 'buy', variants: ['x', 'y', 'z'] });
  experiment = created.body;
  await stack.admin('POST', `/admin/v1/projects/${project}/experiments/${experiment.id}/start`);
});
afterAll(() => stack.stop());

const assigned = async (query: Record<string, string>): Promise<string> => {
  const res = await fetch(`${stack.url}/v1/experiments?${new URLSearchParams(query)}`, { headers: { Authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { assigned_variants: Record<string, string> }).assigned_variants.hero!;
};

/** Fresh IDs whose own buckets differ, so a response bucketed under the user ID would show. */
function visitor(): { anon: string; user: string } {
  const anon = `anon-${randomUUID()}`;
  for (;;) {
    const user = `user-${randomUUID()}`;
    if (variantFor(experiment.id, anon, experiment.variants) !== variantFor(experiment.id, user, experiment.variants)) return { anon, user };
  }
}

describe('GET /v1/experiments before and after login, concurrently', () => {
  it('15 anonymous-only and 15 anonymous-plus-user requests at once all get the anonymous bucket, in every trial, and later user-only requests too', async () => {
    for (let trial = 0; trial < 6; trial++) {
      const { anon, user } = visitor();
      const requests = [
        ...Array.from({ length: 15 }, () => () => assigned({ anonymous_id: anon })),
        ...Array.from({ length: 15 }, () => () => assigned({ user_id: user, anonymous_id: anon })),
      ].sort(() => Math.random() - 0.5);
      const variants = await Promise.all(requests.map((send) => send()));
      const expected = variantFor(experiment.id, anon, experiment.variants);
      expect(new Set(variants), `trial ${trial}`).toEqual(new Set([expected]));
      expect(await assigned({ user_id: user })).toBe(expected);
      expect(await assigned({ anonymous_id: anon })).toBe(expected);
    }
  });
});
