/**
 * Funnels and retention rows as Athena returns them (every value text, NULL absent) become the same
 * result as DuckDB's (bigint, null): a step nobody reached is 0 with its conversions, a cohort's
 * missing periods are 0 up to date_to, and no further.
 */
import { describe, expect, it } from 'vitest';
import { FunnelsDefinition } from '../../lambdas/domain/insights/funnels-definition';
import { toFunnelsResult } from '../../lambdas/domain/insights/funnels-result';
import { RetentionDefinition } from '../../lambdas/domain/insights/retention-definition';
import { toRetentionResult } from '../../lambdas/domain/insights/retention-result';
import { retentionCurve } from '../../dashboard/src/insights/retention-curve';

const funnel = FunnelsDefinition.parse({ steps: [{ event: 'a' }, { event: 'b' }, { event: 'c' }], date_from: '2026-04-01', date_to: '2026-04-07' });

describe('funnel rows to the result', () => {
  it('reads text numbers and absent NULLs (Athena) as DuckDB values, and gives a step nobody reached 0', () => {
    const athena = toFunnelsResult(funnel, [
      { step: '1', users: '4', breakdown_rank: '0' },
      { step: '2', users: '1', median_seconds: '60.0', breakdown_rank: '0' },
    ]);
    const duckdb = toFunnelsResult(funnel, [
      { step: 1n, users: 4n, breakdown_value: null, breakdown_rank: 0n, median_seconds: null },
      { step: 2n, users: 1n, breakdown_value: null, breakdown_rank: 0n, median_seconds: 60 },
    ]);
    expect(athena).toEqual(duckdb);
    expect(athena.groups[0]!.steps.map((s) => [s.users, s.conversion_from_first, s.conversion_from_previous, s.drop_off])).toEqual([
      [4, 1, 1, 0],
      [1, 0.25, 0.25, 3],
      [0, 0, 0, 1],
    ]);
  });

  it('gives a funnel nobody entered zeros and no conversions', () => {
    const steps = toFunnelsResult(funnel, []).groups[0]!.steps;
    expect(steps.map((s) => [s.users, s.conversion_from_first, s.conversion_from_previous])).toEqual([
      [0, null, null],
      [0, null, null],
      [0, null, null],
    ]);
  });
});

describe('retention rows to the triangle', () => {
  it('fills missing periods with 0 up to the one holding date_to, reading Athena text', () => {
    const definition = RetentionDefinition.parse({ start_event: 's', return_event: 'r', interval: 'week', date_from: '2026-04-01', date_to: '2026-04-14' });
    const result = toRetentionResult(definition, [
      { cohort: '2026-03-30', users: '4' },
      { cohort: '2026-03-30', period: '2', users: '1' },
      { cohort: '2026-04-13', users: '2' },
    ]);
    expect(result.cohorts.map((c) => [c.cohort, c.users, c.periods.map((p) => p.users)])).toEqual([
      ['2026-03-30', 4, [0, 0, 1]],
      ['2026-04-13', 2, [0]],
    ]);
    expect(result.cohorts[0]!.periods[2]!.share).toBe(0.25);
    expect(result.periods).toBe(3);
  });
});

describe('retention cells the data do not cover yet', () => {
  const definition = RetentionDefinition.parse({ start_event: 's', return_event: 'r', interval: 'day', date_from: '2026-04-01', date_to: '2026-04-30' });
  const rows = [
    { cohort: '2026-04-01', users: 10 },
    { cohort: '2026-04-01', period: 0, users: 10 },
    { cohort: '2026-04-01', period: 1, users: 5 },
    { cohort: '2026-04-01', period: 2, users: 2 },
    { cohort: '2026-04-02', users: 10 },
    { cohort: '2026-04-02', period: 0, users: 10 },
    { cohort: '2026-04-02', period: 1, users: 1 },
  ];

  it('stops each row at the day the data reach, and marks that day still counting', () => {
    // Data through 2026-04-03 12:00: the 3rd is partly in, the days after it not at all.
    const result = toRetentionResult(definition, rows, { dataThrough: '2026-04-03T12:00:00.000Z' });
    expect(result.data_through).toBe('2026-04-03T12:00:00.000Z');
    expect(result.cohorts.map((c) => c.periods.map((p) => [p.users, p.complete]))).toEqual([
      [
        [10, true],
        [5, true],
        [2, false],
      ],
      [
        [10, true],
        [1, false],
      ],
    ]);
    expect(result.periods).toBe(3);
    // The curve leaves the cells still counting out: day 1 is the 1st's cohort alone (5 of 10), not 6 of 20.
    expect(retentionCurve(result).map((p) => p.share)).toEqual([1, 0.5, null]);
  });

  it('without a watermark keeps the triangle to date_to, every cell complete (as stored results before it)', () => {
    const result = toRetentionResult(definition, rows);
    expect(result.cohorts[0]!.periods).toHaveLength(30);
    expect(result.cohorts[0]!.periods.every((p) => p.complete)).toBe(true);
  });
});
