import { describe, expect, it } from 'vitest';
import { foldSegments, type SegmentVariantRow } from '../../lambdas/domain/breakdown-segments';

const row = (value: string | null, variant: string, users: number, conversions: number): SegmentVariantRow => ({
  value,
  variant,
  users,
  conversions,
});

describe('foldSegments', () => {
  it('shows the top values by enrolled users, folds the rest into "other" and keeps "unknown" apart', () => {
    const rows = [
      row('DE', 'control', 4, 1),
      row('DE', 'treatment', 4, 2),
      row('FR', 'control', 3, 0),
      row('US', 'treatment', 5, 5),
      row('IT', 'control', 1, 1),
      row('ES', 'treatment', 1, 0),
      row(null, 'control', 2, 1),
      row('', 'treatment', 1, 1),
    ];
    const folded = foldSegments(rows, ['control', 'treatment'], 2);
    expect(folded.map((s) => [s.value, s.kind])).toEqual([
      ['DE', 'value'],
      ['US', 'value'],
      ['other', 'other'],
      ['unknown', 'unknown'],
    ]);
    // other = FR 3/0 + IT 1/1 (control), ES 1/0 (treatment).
    expect(folded[2]!.variants).toEqual([
      { variant: 'control', users: 4, conversions: 1 },
      { variant: 'treatment', users: 1, conversions: 0 },
    ]);
    expect(folded[1]!.variants).toEqual([
      { variant: 'control', users: 0, conversions: 0 },
      { variant: 'treatment', users: 5, conversions: 5 },
    ]);
    expect(folded[3]!.variants).toEqual([
      { variant: 'control', users: 2, conversions: 1 },
      { variant: 'treatment', users: 1, conversions: 1 },
    ]);
  });

  it('has no "other" when every value fits, and a client value "other" stays a value', () => {
    const folded = foldSegments([row('other', 'a', 1, 0), row('ios', 'a', 1, 1)], ['a'], 5);
    expect(folded.map((s) => [s.value, s.kind])).toEqual([
      ['ios', 'value'],
      ['other', 'value'],
    ]);
  });
});
