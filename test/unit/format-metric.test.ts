import { describe, expect, it } from 'vitest';
import { formatAmount, formatMeanWithError, formatMetricDifference } from '../../dashboard/src/results/format-metric';

describe('metric numbers as people read them', () => {
  it('shows amounts with three significant figures and the whole part', () => {
    expect([1234.5, 12.345, 0.012345, 0, -3.456, null].map(formatAmount)).toEqual(['1,235', '12.3', '0.0123', '0', '\u22123.46', '—']);
  });
  it('shows a conversion as a rate in percent with its error in points, other kinds as numbers', () => {
    expect(formatMeanWithError('conversion', 0.1234, 0.004)).toBe('12.3% ± 0.4 pp');
    expect(formatMeanWithError('sum', 35.25, 0.812)).toBe('35.3 ± 0.812');
    expect(formatMeanWithError('count', null, null)).toBe('—');
  });
  it('signs differences: points for a conversion, numbers otherwise', () => {
    expect(formatMetricDifference('conversion', 0.032)).toBe('+3.2 pp');
    expect(formatMetricDifference('sum', 2.5)).toBe('+2.5');
    expect(formatMetricDifference('count', -0.25)).toBe('\u22120.25');
  });
});
