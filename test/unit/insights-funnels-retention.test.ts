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
