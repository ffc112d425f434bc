/**
 * A running experiment can always be recovered (issue 33; docs/api.md "When results cannot be
 * computed"): when its results cannot be computed, POST .../results/refresh says why in words and
 * what to do (stop it, then create a new experiment with corrected metrics), not a bare "Internal
 * server error"; the engine's own message, which may quote the metric's settings, stays in the log;
 * the experiment can still be stopped. Through the local stack, with a results query that fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultsQuery } from '../../lambdas/ports';
import { startTestProject, type TestStack } from '../helpers/local';

const failing: ResultsQuery = {
  count: () => Promise.reject(new Error('Binder Error: JSON path error near \'."secret_property"\'')),
};
let stack: TestStack;
let project: string;

beforeAll(async () => {
  ({ stack, project } = await startTestProject('cannot-compute', { overrides: (deps) => ({ ...deps, resultsQuery: failing }) }));
});
afterAll(() => stack?.stop());

describe('results that cannot be computed', () => {
  it('the refresh says why in words and the way out; the experiment can still be stopped', async () => {
    const base = `/admin/v1/projects/${project}/experiments`;
    const created = await stack.admin('POST', base, { name: 'Broken', goal_event: 'purchase' });
    const id = created.body.id as string;
    expect((await stack.admin('POST', `${base}/${id}/start`)).status).toBe(200);
    const refreshed = await stack.admin('POST', `${base}/${id}/results/refresh`);
    expect(refreshed.status).toBe(500);
    expect(refreshed.body.error).toMatch(/^The results could not be computed: the query failed/);
    expect(refreshed.body.error).toMatch(/stop it .* and create a new experiment, under a new name, with the corrected metrics/);
    expect(refreshed.body.error).not.toContain('secret_property');
    const stopped = await stack.admin('POST', `${base}/${id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.status).toBe('stopped');
  });
});
