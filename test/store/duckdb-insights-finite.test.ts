/**
 * The local insight engine never turns a figure that is not a finite number into "nothing": JSON would
 * write DuckDB's Infinity and NaN as null, which the trends shaper reads as 0 (issue 33: trends' sum
 * answered 200 with zeros). Such a row fails the query with a message instead; finite rows are kept.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DuckDbInsightEngine } from '../../lambdas/adapters/duckdb-insights';
import { DuckDbProcess } from '../../lambdas/local/duckdb-process';

const query = (sql: string) => ({ sql, projectId: 'p', fromDt: '2026-04-01', toDt: '2026-04-01' });

// In this process (an adapter's own tests, benchmarks) and in the local server's query process.
describe.each([
  ['in process', () => new DuckDbInsightEngine(mkdtempSync(join(tmpdir(), 'tally-insights-finite-')), { threads: 1 })],
  ['in the query process', () => new DuckDbInsightEngine(mkdtempSync(join(tmpdir(), 'tally-insights-finite-')), { duckdb: new DuckDbProcess({ threads: 1 }) })],
])('DuckDbInsightEngine (%s) and figures that are not finite', (_where, make) => {
  const engine = make();
  afterAll(() => engine.close());

  it.each([
    ["CAST('inf' AS double)", 'inf'],
    ["CAST('-inf' AS double)", '-inf'],
    ["CAST('nan' AS double)", 'nan'],
  ])('fails the query on %s instead of writing null', async (expression) => {
    const started = await engine.start(query(`SELECT 1 AS events, ${expression} AS value_sum`), '0'.repeat(31) + '1');
    expect(started.state).toBe('failed');
    expect(started.error).toMatch(/in value_sum, not a finite number/);
  });

  it('keeps finite figures', async () => {
    const token = '0'.repeat(31) + '2';
    expect((await engine.start(query('SELECT 1 AS events, 2.5 AS value_sum'), token)).state).toBe('succeeded');
    expect(await engine.rows(token)).toEqual([{ events: 1, value_sum: 2.5 }]);
  });
});
