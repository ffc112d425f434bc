/**
 * Relative ranges (domain/insights/relative-range.ts): resolved against the day an insight is opened,
 * so a saved "last 7 days" still covers the last 7 days later on; fixed dates and definitions without
 * a range stay as they are; the definitions accept `range` and refuse an unknown one naming the field.
 */
import { describe, expect, it } from 'vitest';
import { INSIGHT_KINDS } from '../../lambdas/domain/insights/kinds';
import { resolveRange, withResolvedRange } from '../../lambdas/domain/insights/relative-range';

describe('resolveRange', () => {
  it.each([
    ['last_7_days', '2026-04-15', '2026-04-09', '2026-04-15'],
    ['last_30_days', '2026-04-15', '2026-03-17', '2026-04-15'],
    ['last_90_days', '2026-04-15', '2026-01-16', '2026-04-15'],
    ['this_month', '2026-04-15', '2026-04-01', '2026-04-15'],
    ['this_month', '2026-03-01', '2026-03-01', '2026-03-01'],
    ['last_7_days', '2028-03-02', '2028-02-25', '2028-03-02'],
  ] as const)('%s on %s is %s to %s', (range, today, from, to) => {
    expect(resolveRange(range, today)).toEqual({ date_from: from, date_to: to });
  });
});

describe('withResolvedRange', () => {
  const saved = { series: [{ event: 'signup' }], date_from: '2026-04-01', date_to: '2026-04-07', range: 'last_7_days' };

  it('moves a relative range to the day it is opened', () => {
    expect(withResolvedRange(saved, '2026-05-20')).toEqual({ ...saved, date_from: '2026-05-14', date_to: '2026-05-20' });
  });

  it('keeps fixed dates: "custom", and definitions saved before ranges existed', () => {
    expect(withResolvedRange({ ...saved, range: 'custom' }, '2026-05-20')).toEqual({ ...saved, range: 'custom' });
    const { range: _r, ...old } = saved;
    expect(withResolvedRange(old, '2026-05-20')).toEqual(old);
  });
});

describe('the range field of every insight kind', () => {
  const definitions = {
    trends: { series: [{ event: 'signup' }], date_from: '2026-04-01', date_to: '2026-04-07' },
    funnels: { steps: [{ event: 'a' }, { event: 'b' }], date_from: '2026-04-01', date_to: '2026-04-07' },
    retention: { start_event: 'a', return_event: 'b', date_from: '2026-04-01', date_to: '2026-04-07' },
  };
  it.each(Object.entries(definitions))('%s keeps range and refuses an unknown one', (kind, definition) => {
    const schema = INSIGHT_KINDS[kind as keyof typeof INSIGHT_KINDS].definition;
    expect((schema.parse({ ...definition, range: 'last_30_days' }) as { range: string }).range).toBe('last_30_days');
    const bad = schema.safeParse({ ...definition, range: 'yesterday' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['range'], message: expect.stringMatching(/^range must be one of "last_7_days"/) });
  });
});
