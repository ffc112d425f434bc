/**
 * An experiment broken before the numeric rule recovers (issue 33; docs/decisions/property-names.md):
 * its incremental state, summarised under the old reading, holds Infinity for a "1e400" purchase and
 * names the sum's source without the rule. The results job must not read that state again: the sum's
 * source now names the rule, so the state is built anew from the raw events and the metric is
 * computed (finite, "1e400" as no value), not carried as unavailable forever.
 * Through the local stack: the old state is the new one's files rewritten as the old code wrote them.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProject, type TestStack } from '../helpers/local';

let now = Date.parse('2026-04-10T09:00:00.000Z');
let stack: TestStack;
let project: string;
let key: string;

beforeAll(async () => {
  ({ stack, project, key } = await startTestProject('state-numeric-rule', { clock: () => now }));
});
afterAll(() => stack.stop());

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else out.push(path);
  }
  return out;
}

describe('a state summarised before the numeric rule', () => {
  it('is not read again: the sum is computed from the raw events under the rule', async () => {
    const base = `/admin/v1/projects/${project}/experiments`;
    const created = await stack.admin('POST', base, {
      name: 'Old state',
      goal_event: 'signup',
      metrics: [{ name: 'Revenue', event: 'purchase', kind: 'sum', property: 'revenue', role: 'secondary' }],
    });
    const id = created.body.id as string;
    expect((await stack.admin('POST', `${base}/${id}/start`)).status).toBe(200);
    now = Date.parse('2026-04-10T12:00:00.000Z');
    const sent = await stack.post('/v1/events', key, {
      events: [
        { name: '$experiment_exposure', user_id: 'a1', timestamp: '2026-04-10T10:00:00.000Z', properties: { $experiment_name: 'Old state', $variant: 'a' } },
        { name: '$experiment_exposure', user_id: 'b1', timestamp: '2026-04-10T10:00:00.000Z', properties: { $experiment_name: 'Old state', $variant: 'b' } },
        { name: 'purchase', user_id: 'a1', timestamp: '2026-04-10T11:00:00.000Z', properties: { revenue: 10 } },
        { name: 'purchase', user_id: 'b1', timestamp: '2026-04-10T11:00:00.000Z', properties: { revenue: '1e400' } },
        { name: 'purchase', user_id: 'b1', timestamp: '2026-04-10T11:01:00.000Z', properties: { revenue: 4 } },
      ],
    });
    expect(sent.status, sent.text).toBe(204);
    // The job's arrival allowance: the events are in the state once it has passed.
    now = Date.parse('2026-04-10T13:00:00.000Z');
    const first = await stack.admin('POST', `${base}/${id}/results/refresh`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.incremental.committed).toBe(true);

    // Rewrite the state as the code before the rule wrote it: the source without the rule, and the
    // value of the "1e400" purchase as its cast gave it, Infinity.
    const stateFiles = [...files(join(stack.dataDir, 'results-state')), ...files(join(stack.dataDir, 'results-base'))];
    const duck = await DuckDBInstance.create(':memory:');
    const connection = await duck.connect();
    let rewritten = 0;
    for (const file of stateFiles.filter((f) => f.endsWith('.parquet'))) {
      const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
      await connection.run(`CREATE OR REPLACE TEMP TABLE t AS SELECT * FROM read_parquet(${q(file)})`);
      await connection.run(`UPDATE t SET metric_source = '["purchase","revenue"]' WHERE metric_source LIKE '["purchase","revenue",%'`);
      await connection.run(`UPDATE t SET metric_value = CAST('inf' AS double) WHERE metric_value = 0 AND metric_source IS NOT NULL`);
      await connection.run(`UPDATE t SET metric_sources = '["[\\"purchase\\",\\"revenue\\"]"]' WHERE metric_sources IS NOT NULL`);
      rewritten += Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM t WHERE metric_source IS NOT NULL`)).getRowObjectsJS()[0]!.n);
      await connection.run(`COPY t TO ${q(file)} (FORMAT parquet)`);
    }
    connection.closeSync();
    duck.closeSync();
    expect(rewritten).toBeGreaterThan(0);
    // The commits name the set of sources their rows summarise: the old set.
    const oldSet = JSON.stringify(['["purchase","revenue"]']);
    for (const file of stateFiles.filter((f) => f.endsWith('watermark.json') || f.endsWith('commit.json'))) {
      const committed = JSON.parse(readFileSync(file, 'utf8'));
      writeFileSync(file, JSON.stringify(file.endsWith('watermark.json') ? { ...committed, metric_sources: oldSet } : { ...committed, metricSources: oldSet }));
    }

    now = Date.parse('2026-04-10T14:00:00.000Z');
    const again = await stack.admin('POST', `${base}/${id}/results/refresh`);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const revenue = again.body.metrics.find((m: any) => m.name === 'Revenue');
    expect(revenue.unavailable).toBeUndefined();
    expect(revenue.variants.map((v: any) => [v.variant, v.users, v.mean])).toEqual([
      ['a', 1, 10],
      ['b', 1, 4],
    ]);
  });
});
