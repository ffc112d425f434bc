/**
 * The numeric rule (lambdas/domain/numeric-rule.ts): which property values are numbers, and the SQL
 * every analysis reads numbers with (rules/property-number.sql) states the same pattern and bound.
 * What DuckDB answers for each value is tested end to end (test/e2e/hostile-properties.e2e.test.ts,
 * test/property/analyses.property.test.ts).
 */
import { describe, expect, it } from 'vitest';
import PROPERTY_NUMBER_SQL from '../../lambdas/adapters/sql/rules/property-number.sql';
import { JSON_NUMBER_PATTERN, NUMBER_BOUND, ruleNumber } from '../../lambdas/domain/numeric-rule';

describe('the numeric rule', () => {
  it('reads JSON numbers and strings in the JSON number form within ±1e15', () => {
    expect([10, -2.5, 0, '12.50', '-0', '1e15', '-1E+15', '1e-400'].map(ruleNumber)).toEqual([10, -2.5, 0, 12.5, -0, 1e15, -1e15, 0]);
  });

  it('refuses what a double cannot hold, what its square cannot, and every other spelling', () => {
    for (const value of [
      '1e400',
      1e200,
      '1e200',
      1e16,
      '1000000000000001',
      'Infinity',
      'NaN',
      '0x10',
      ' 1',
      '1.',
      '.5',
      '+1',
      '',
      'free',
      true,
      null,
      {},
      [1],
      Infinity,
      NaN,
    ]) {
      expect(ruleNumber(value), JSON.stringify(value)).toBeNull();
    }
  });

  it('is the SQL text every analysis reads numbers with', () => {
    expect(PROPERTY_NUMBER_SQL).toContain(`regexp_like(json_extract_scalar(properties, property_path), '${JSON_NUMBER_PATTERN}')`);
    expect(PROPERTY_NUMBER_SQL).toContain(
      `abs(CAST(json_extract_scalar(properties, property_path) AS double)) <= ${NUMBER_BOUND.toExponential().replace('+', '')}`,
    );
  });
});
