/**
 * Why a relative interval starts at −100% (issue 22): shown under a table when one of its comparisons'
 * relative intervals was cut at the floor (relative-interval-floor.ts), with the reason.
 */
import { RELATIVE_FLOOR } from '../../../lambdas/domain/relative-interval-floor';

export function FloorNote({ lows }: { lows: ReadonlyArray<number | null | undefined> }) {
  if (!lows.some((low) => low === RELATIVE_FLOOR)) return null;
  return (
    <p class="hint floor-note">
      A relative interval that starts at −100% was cut there: a conversion rate cannot fall below zero, so the relative difference cannot be below −100% (with
      few users the delta method's interval reaches lower).
    </p>
  );
}
