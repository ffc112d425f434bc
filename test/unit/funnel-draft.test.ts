/** The Funnels form's draft (dashboard/src/insights/funnel-draft.ts): its default range and the links it reads. */
import { describe, expect, it } from 'vitest';
import { emptyFunnelDraft, fromFunnelDefinition, toFunnelDefinition } from '../../dashboard/src/insights/funnel-draft';

describe('the funnel form draft', () => {
  it('starts on the last 7 UTC days, today included, as the trends page does', () => {
    expect(emptyFunnelDraft(Date.parse('2026-11-27T23:59:00.000Z'))).toMatchObject({ date_from: '2026-11-21', date_to: '2026-11-27' });
  });

  it('reads a link written before step filters (steps with only an event) and sends the same definition back', () => {
    const old = {
      steps: [{ event: 'view' }, { event: 'buy' }],
      date_from: '2026-11-01',
      date_to: '2026-11-07',
      conversion_window_days: 3,
      breakdown: 'platform',
    };
    expect(toFunnelDefinition(fromFunnelDefinition(old))).toEqual(old);
  });
});
