/**
 * DynamoExperimentStore on dynalite and an experiment's metric settings (issue 22): stored and read
 * back as written, changed by an edit, and read with their defaults from an item stored before they
 * existed (no `metrics`, `sequential` or `correction` attribute).
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Experiment } from '../../lambdas/domain/experiment';
import { DynamoExperimentStore } from '../../lambdas/store/experiment-store';
import { startTestDynamo, type TestDynamo } from '../helpers/dynamo';

let dynamo: TestDynamo;
let store: DynamoExperimentStore;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  store = new DynamoExperimentStore(dynamo.ddb, dynamo.table('experiments'));
});
afterAll(() => dynamo.close());

const before: Omit<Experiment, 'id'> = {
  project_id: 'p1',
  name: 'Stored Before',
  variants: ['a', 'b'],
  weights: null,
  goal_event: 'purchase',
  description: null,
  status: 'created',
  created_at: '2026-01-01T00:00:00.000Z',
  started_at: null,
  stopped_at: null,
};

describe('metric settings in DynamoExperimentStore', () => {
  it('reads an experiment stored before them with no metrics, sequential testing and the Holm correction', async () => {
    const id = randomUUID();
    await dynamo.ddb.send(new PutCommand({ TableName: dynamo.table('experiments'), Item: { ...before, id, sk: `exp#${id}` } }));
    const read = await store.get('p1', id);
    expect(read).toMatchObject({ metrics: [], sequential: true, correction: 'holm', planned_users: null, cuped: true, cuped_lookback_days: 14 });
    expect((await store.list('p1')).find((e) => e.id === id)).toMatchObject({ metrics: [], sequential: true, correction: 'holm' });
  });

  it('stores them as written and changes them with an edit, null correction included', async () => {
    const experiment: Experiment = {
      ...before,
      id: randomUUID(),
      name: 'Stored With Metrics',
      metrics: [{ name: 'Revenue', event: 'purchase', kind: 'sum', property: 'amount', role: 'secondary', cap: 0.99 }],
      sequential: false,
      correction: 'benjamini-hochberg',
      cuped: false,
      cuped_lookback_days: 30,
      planned_users: null,
    };
    await store.create(experiment);
    expect(await store.get('p1', experiment.id)).toEqual(experiment);
    const guardrail = { name: 'Errors', event: 'error', kind: 'count', role: 'guardrail', direction: 'increase' } as const;
    const edited = await store.update(experiment, { metrics: [guardrail], sequential: true, correction: null, cuped: true, cuped_lookback_days: 7 });
    expect(edited).toMatchObject({ metrics: [guardrail], sequential: true, correction: null, cuped: true, cuped_lookback_days: 7 });
    expect(await store.get('p1', experiment.id)).toMatchObject({ metrics: [guardrail], sequential: true, correction: null });
  });
});
