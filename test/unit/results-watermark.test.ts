/** The incremental results job's watermark rule (lambdas/domain/results-watermark.ts). */
import { describe, expect, it } from 'vitest';
import { initialWatermark, nextSlice, stateServes } from '../../lambdas/domain/results-watermark';

const ALLOWANCE = 10 * 60_000;

describe('results watermark', () => {
  it('starts an empty state 48 hours before the run: no event timestamped in the run was received earlier', () => {
    expect(initialWatermark('2026-03-10T08:00:00.000Z')).toBe('2026-03-08T08:00:00.000Z');
  });

  it('takes in the events received up to the arrival allowance before the run', () => {
    expect(
      nextSlice({ watermark: '2026-03-10T08:00:00.000Z', now: '2026-03-10T09:00:00.000Z', to: '2026-03-10T09:00:00.000Z', allowanceMs: ALLOWANCE }),
    ).toEqual({
      lo: '2026-03-10T08:00:00.000Z',
      hi: '2026-03-10T08:50:00.000Z',
    });
  });

  it('never takes in events received after the run ends (a stopped experiment)', () => {
    expect(
      nextSlice({ watermark: '2026-03-10T08:00:00.000Z', now: '2026-03-11T09:00:00.000Z', to: '2026-03-10T12:00:00.000Z', allowanceMs: ALLOWANCE }),
    ).toEqual({
      lo: '2026-03-10T08:00:00.000Z',
      hi: '2026-03-10T12:00:00.000Z',
    });
    // Already there: nothing more to take in.
    expect(
      nextSlice({ watermark: '2026-03-10T12:00:00.000Z', now: '2026-03-12T09:00:00.000Z', to: '2026-03-10T12:00:00.000Z', allowanceMs: ALLOWANCE }),
    ).toBeUndefined();
  });

  it('has nothing to add until the allowance has passed since the watermark', () => {
    expect(
      nextSlice({ watermark: '2026-03-10T08:55:00.000Z', now: '2026-03-10T09:00:00.000Z', to: '2026-03-10T09:00:00.000Z', allowanceMs: ALLOWANCE }),
    ).toBeUndefined();
  });

  it('serves a run only if the state holds nothing received after its end', () => {
    expect(stateServes('2026-03-10T12:00:00.000Z', '2026-03-10T12:00:00.000Z')).toBe(true);
    expect(stateServes('2026-03-10T12:00:00.001Z', '2026-03-10T12:00:00.000Z')).toBe(false);
  });
});
