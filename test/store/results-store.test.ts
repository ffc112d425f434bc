/** DynamoResultsStore on dynalite: the series is stored as counts and its statistics rebuilt on read. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cumulateSeries, MAX_SERIES_DAYS, seriesPoints, type PeriodCounts } from '../../lambdas/domain/results-series';
import { experimentStats } from '../../lambdas/domain/stats';
import { MAX_VARIANTS } from '../../lambdas/handlers/experiments-admin';
import type { ExperimentResults } from '../../lambdas/ports';
import { DynamoResultsStore } from '../../lambdas/store/results-store';
import { startTestDynamo, type TestDynamo } from '../helpers/dynamo';

let dynamo: TestDynamo;
let store: DynamoResultsStore;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  store = new DynamoResultsStore(dynamo.ddb, dynamo.table('results'));
});
afterAll(() => dynamo.close());

function results(id: string, variants: string[], window: { from: string; to: string }, days: PeriodCounts[]): ExperimentResults {
  const series = seriesPoints(window, cumulateSeries(window, variants, days));
  const last = series.at(-1)!;
  const stats = experimentStats(last.variants);
  return {
    experiment_id: id,
    status: 'running',
    computed_at: window.to,
    window,
    variants: stats.variants,
    comparisons: stats.comparisons,
    srm: stats.srm,
    multiple_exposures: 0,
    series,
  };
}

describe('DynamoResultsStore', () => {
  it('round-trips results with their series exactly, hourly (a run under 3 days) and daily', async () => {
    const window = { from: '2026-03-01T10:00:00.000Z', to: '2026-03-03T08:00:00.000Z' };
    const r = results('exp-1', ['a', 'b'], window, [
      { variant: 'a', period: '2026-03-01T10', enrolled: 10, converted: 2 },
      { variant: 'b', period: '2026-03-02T15', enrolled: 12, converted: 5 },
    ]);
    expect(r.series).toHaveLength(47);
    expect(r.series[5]).toMatchObject({ date: '2026-03-01T15:00:00.000Z', interval: 'hour', as_of: '2026-03-01T15:59:59.999Z' });
    await store.put('p1', r);
    expect(await store.get('p1', 'exp-1')).toEqual(r);
    const daily = results('exp-2', ['a', 'b'], { from: '2026-03-01T10:00:00.000Z', to: '2026-03-05T08:00:00.000Z' }, [
      { variant: 'a', period: '2026-03-01', enrolled: 10, converted: 2 },
    ]);
    expect(daily.series.map((p) => [p.date, p.interval])).toEqual([
      ['2026-03-01', 'day'],
      ['2026-03-02', 'day'],
      ['2026-03-03', 'day'],
      ['2026-03-04', 'day'],
      ['2026-03-05', 'day'],
    ]);
    await store.put('p1', daily);
    expect(await store.get('p1', 'exp-2')).toEqual(daily);
    expect(await store.get('p1', 'exp-missing')).toBeUndefined();
  });

  it('answers an empty series for results stored before the series existed', async () => {
    const { series: _series, ...old } = results('exp-old', ['a', 'b'], { from: '2026-03-01T10:00:00.000Z', to: '2026-03-01T11:00:00.000Z' }, []);
    await dynamo.ddb.send(
      new PutCommand({ TableName: dynamo.table('results'), Item: { project_id: 'p1', experiment_id: 'exp-old', results: JSON.stringify(old) } }),
    );
    expect(await store.get('p1', 'exp-old')).toEqual({ ...old, series: [] });
  });

  it('stays far under the 400 KB item limit at the bounds: 26 variants, MAX_SERIES_DAYS points, large counts', async () => {
    const variants = Array.from({ length: MAX_VARIANTS }, (_, i) => `variant-${String.fromCharCode(97 + i)}`);
    const window = { from: '2025-01-01T00:00:00.000Z', to: '2026-06-30T12:00:00.000Z' };
    // Every variant enrolls 9,999,999 users (7-digit counts in every kept point). Few conversions keep the
    // chance to beat control cheap to compute here; the stored size depends on the digits only.
    const days: PeriodCounts[] = variants.flatMap((variant) => [
      { variant, period: '2025-01-01', enrolled: 9_990_000, converted: 90 },
      { variant, period: '2026-06-30', enrolled: 9_999, converted: 9 },
    ]);
    const r = results('exp-big', variants, window, days);
    expect(r.series).toHaveLength(MAX_SERIES_DAYS);
    await store.put('p1', r);
    const raw = await dynamo.ddb.send(new GetCommand({ TableName: dynamo.table('results'), Key: { project_id: 'p1', experiment_id: 'exp-big' } }));
    const bytes = Buffer.byteLength(raw.Item!.results as string);
    expect(bytes).toBeLessThan(250_000);
    // The full statistics would not fit.
    expect(Buffer.byteLength(JSON.stringify(r))).toBeGreaterThan(400 * 1024);
    expect(await store.get('p1', 'exp-big')).toEqual(r);
  });
});
