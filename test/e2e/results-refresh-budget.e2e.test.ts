/**
 * POST .../results/refresh never outlives API Gateway's 29 s: when the computation does not end
 * within the route's budget it answers 202 with how to poll, and the Athena query in flight is
 * stopped (StopQueryExecution), never left running. Through the local stack, with the AWS path's
 * AthenaResultsQuery on a stubbed Athena whose queries never finish, and the budget shortened.
 */
import { AthenaClient, GetQueryExecutionCommand, StartQueryExecutionCommand, StopQueryExecutionCommand } from '@aws-sdk/client-athena';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AthenaResultsQuery } from '../../lambdas/adapters/athena-results-query';
import { startTestProject, type TestStack } from '../helpers/local';

const athena = mockClient(AthenaClient);
const started: string[] = [];
const stopped: string[] = [];
let stack: TestStack;
let project: string;

beforeAll(async () => {
  athena.on(StartQueryExecutionCommand).callsFake(() => ({ QueryExecutionId: `q-${started.push('q')}` }));
  athena.on(GetQueryExecutionCommand).callsFake((input) => ({ QueryExecution: { QueryExecutionId: input.QueryExecutionId, Status: { State: 'RUNNING' } } }));
  athena.on(StopQueryExecutionCommand).callsFake(async (input) => (stopped.push(input.QueryExecutionId), {}));
  const client = new AthenaClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
  ({ stack, project } = await startTestProject('refresh-budget', {
    overrides: (deps) => ({ ...deps, resultsQuery: new AthenaResultsQuery(client, { workGroup: 'w', pollMs: 10 }), refreshBudgetMs: 500 }),
  }));
});
afterAll(async () => {
  await stack?.stop();
  athena.restore();
});

describe('POST .../results/refresh past its budget', () => {
  it('answers 202 with the results URL to poll, and stops the Athena query it started', async () => {
    const base = `/admin/v1/projects/${project}/experiments`;
    const created = await stack.admin('POST', base, { name: 'Slow Query', goal_event: 'purchase', variants: ['a', 'b'] });
    const id = created.body.id as string;
    await stack.admin('POST', `${base}/${id}/start`);

    const refreshed = await stack.admin('POST', `${base}/${id}/results/refresh`);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(202);
    expect(refreshed.body).toMatchObject({ experiment_id: id, status: 'pending', results_url: `${base}/${id}/results` });
    expect(Date.parse(refreshed.body.requested_at as string)).not.toBeNaN();
    expect(refreshed.body.message).toMatch(/did not finish within 1 s .* GET results_url until computed_at/);
    expect(refreshed.headers.get('location')).toBe(`${base}/${id}/results`);
    expect(refreshed.headers.get('retry-after')).toBe('60');
    // One query started (the watermark), and it was stopped at the deadline: none left running.
    expect(started).toHaveLength(1);
    expect(stopped).toEqual(['q-1']);
    // Nothing stored: GET results still says none computed yet.
    expect((await stack.admin('GET', `${base}/${id}/results`)).status).toBe(404);
  });
});
