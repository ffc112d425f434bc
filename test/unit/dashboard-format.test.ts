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
} from '../../dashboard/src/results/format-stats';
import { resultsFinality } from '../../dashboard/src/results/results-finality';
import { verdict } from '../../dashboard/src/results/verdict';
import type { VariantStats } from '../../dashboard/src/admin-types';
import { outcomeOf, type PrimaryAnalysis, type PrimaryComparison } from '../../lambdas/domain/primary-analysis';
import { formatTime } from '../../dashboard/src/format-time';

const figures = (variant: string, converted: number, enrolled: number): VariantStats => ({
  variant,
  enrolled,
  converted,
  conversion_rate: enrolled ? converted / enrolled : null,
  ci_low: null,
  ci_high: null,
});
const control = figures('control', 10, 40);
const treatment = figures('treatment', 15, 40);

/** A primary-metric comparison whose decision p-value is p (adjusted when the analysis corrects). */
const comparison = (p: number | null, diff: number | null): PrimaryComparison => ({
  variant: 'treatment',
  difference: diff,
  ci_low: null,
  ci_high: null,
  p_value: p,
  adjusted_p_value: p,
  decision_p_value: p,
  outcome: outcomeOf(diff, p),
  relative_difference: null,
  relative_ci_low: null,
  relative_ci_high: null,
  relative_p_value: null,
});
const analysis = (sequential: boolean, correction: PrimaryAnalysis['correction']): PrimaryAnalysis => ({
  metric: 'purchase',
  sequential,
  correction,
  family_size: 1,
  comparisons: [],
});
const SEQ_HOLM = analysis(true, 'holm');

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

  it('says in plain words whether a variant converts better, on what figures and which test it rests', () => {
    const at = (p: number | null, diff: number | null, running: boolean, a = SEQ_HOLM) =>
      verdict({ analysis: a, comparison: comparison(p, diff), variant: treatment, control, controlName: 'control', goal: 'purchase', running });
    expect(at(0.012, 0.05, true)).toBe(
      'treatment converts better than control: 37.5% of 40 users against 25% of 40 users (sequential test, Holm-adjusted p = 0.012).',
    );
    expect(at(0.0001, -0.05, false)).toBe(
      'treatment converts worse than control: 37.5% of 40 users against 25% of 40 users (sequential test, Holm-adjusted p < 0.001).',
    );
    expect(at(0.42, 0.01, true)).toBe(
      'No significant difference yet between treatment and control: 37.5% of 40 users against 25% of 40 users (sequential test, Holm-adjusted p = 0.42).',
    );
    expect(at(0.42, 0.01, false, analysis(false, null))).toBe(
      'No significant difference between treatment and control: 37.5% of 40 users against 25% of 40 users (fixed-horizon test, p = 0.42).',
    );
    expect(at(0.03, 0.01, false, analysis(true, 'benjamini-hochberg'))).toContain('(sequential test, Benjamini–Hochberg-adjusted p = 0.03)');
  });

  it('never says "not enough data" where the data say why: no users, or no variation to test', () => {
    const empty = figures('treatment', 0, 0);
    const base = { analysis: SEQ_HOLM, controlName: 'control', goal: 'purchase' };
    expect(verdict({ ...base, comparison: comparison(null, null), variant: empty, control, running: true })).toBe(
      'Not enough data to compare treatment with control yet: no one is enrolled in treatment.',
    );
    expect(verdict({ ...base, comparison: comparison(null, 0), variant: figures('treatment', 4, 4), control: figures('control', 1, 1), running: false })).toBe(
      'No difference between treatment and control: every user of both sent purchase (100% of 4 users against 100% of 1 user), so there is no variation to test and no p-value.',
    );
    expect(
      verdict({ ...base, comparison: comparison(null, 0), variant: figures('treatment', 0, 5), control: figures('control', 0, 40), running: true }),
    ).toContain('No difference between treatment and control yet: no user of either sent purchase (0% of 5 users against 0% of 40 users)');
  });

  it('calls stopped results final only once they cover the run up to the stop', () => {
    const stopped = { status: 'stopped' as const, stopped_at: '2026-11-26T10:00:00.000Z' };
    expect(resultsFinality({ status: 'running', stopped_at: null }, { to: '2026-11-26T09:00:00.000Z' })).toEqual({ kind: 'running' });
    expect(resultsFinality(stopped, { to: '2026-11-26T10:00:00.000Z' })).toEqual({ kind: 'final' });
    expect(resultsFinality(stopped, { to: '2026-11-26T09:59:24.000Z' })).toEqual({
      kind: 'finishing',
      stoppedAt: '2026-11-26T10:00:00.000Z',
      coveredTo: '2026-11-26T09:59:24.000Z',
    });
  });
});
