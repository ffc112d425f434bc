/** The dashboard's formatting: statistics numbers (dashboard/src/results/format-stats.ts) and times (dashboard/src/format-time.ts). */
import { describe, expect, it } from 'vitest';
import {
  formatChance,
  formatCount,
  formatInterval,
  formatPercent,
  formatPoints,
  formatPStatement,
  formatPValue,
  formatRelative,
  verdict,
} from '../../dashboard/src/results/format-stats';
import type { Comparison } from '../../dashboard/src/admin-types';
import { formatTime } from '../../dashboard/src/format-time';

const comparison = (p: number | null, diff: number | null): Comparison => ({
  variant: 'treatment',
  control: 'control',
  absolute_diff: diff,
  relative_diff: null,
  ci_low: null,
  ci_high: null,
  p_value: p,
  relative_ci_low: null,
  relative_ci_high: null,
  relative_p_value: null,
  chance_to_beat_control: null,
});

describe('dashboard number formatting', () => {
  it('shows rates as percentages with sensible decimals', () => {
    expect(formatPercent(0.1234)).toBe('12.3%');
    expect(formatPercent(0.5)).toBe('50%');
    expect(formatPercent(0.004567)).toBe('0.46%');
    expect(formatPercent(0)).toBe('0%');
    expect(formatPercent(1)).toBe('100%');
    expect(formatPercent(-0.00001)).toBe('0%'); // rounds to zero: no "−0%"
    expect(formatPercent(-0.034)).toBe('\u22123.4%');
  });

  it('shows "—" for anything not computable', () => {
    for (const f of [formatPercent, formatPoints, formatRelative, formatPValue, formatChance]) {
      expect(f(null)).toBe('—');
      expect(f(Number.NaN)).toBe('—');
    }
    expect(formatInterval(null, 0.2, formatPercent)).toBe('—');
    expect(formatTime(null)).toBe('—');
  });

  it('signs differences: percentage points for absolute, percent for relative', () => {
    expect(formatPoints(0.032)).toBe('+3.2 pp');
    expect(formatPoints(-0.0015)).toBe('\u22120.15 pp');
    expect(formatPoints(0)).toBe('0 pp');
    expect(formatRelative(0.06667)).toBe('+6.7%');
    expect(formatRelative(-0.25)).toBe('\u221225%');
    expect(formatInterval(-0.47767, 0.61101, formatRelative)).toBe('\u221247.8% to +61.1%');
  });

  it('shows p-values with a floor and chances without false certainty', () => {
    expect(formatPValue(0.0004)).toBe('< 0.001');
    expect(formatPValue(0.0123)).toBe('0.012');
    expect(formatPValue(0.80707)).toBe('0.81');
    expect(formatPValue(1)).toBe('1');
    expect(formatPStatement(0.0004)).toBe('p < 0.001');
    expect(formatPStatement(0.0123)).toBe('p = 0.012');
    expect(formatPStatement(null)).toBe('p —');
    expect(formatChance(0.99995)).toBe('> 99.9%');
    expect(formatChance(0.00001)).toBe('< 0.1%');
    expect(formatChance(0.8734)).toBe('87.3%');
  });

  it('formats counts and times for people', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatTime('2026-11-22T15:04:05.123Z')).toBe('2026-11-22 15:04:05 UTC');
    expect(formatTime('not a date')).toBe('not a date');
  });

  it('says in plain words whether a variant converts better', () => {
    expect(verdict(comparison(0.012, 0.05), true)).toBe('treatment converts better than control (p = 0.012).');
    expect(verdict(comparison(0.0001, -0.05), false)).toBe('treatment converts worse than control (p < 0.001).');
    expect(verdict(comparison(0.42, 0.01), true)).toBe('No significant difference yet between treatment and control (p = 0.42).');
    expect(verdict(comparison(0.42, 0.01), false)).toBe('No significant difference between treatment and control (p = 0.42).');
    expect(verdict(comparison(null, null), true)).toBe('Not enough data to compare treatment with control yet.');
  });
});
