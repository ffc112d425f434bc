/**
 * A guardrail metric is breached when some variant moves it in its bad direction (`increase` or
 * `decrease`) significantly: the difference from the control has that sign and its p-value is below
 * 1 - confidence. The raw p-value decides, not a corrected one: guardrails are outside the correction's
 * family (as in GrowthBook, which corrects only non-guardrail metrics), so that correcting for many
 * metrics never hides harm. With sequential testing the p-value is the always-valid one, so checking
 * after every results run does not raise false alarms.
 */
export type GuardrailDirection = 'increase' | 'decrease';

export interface GuardrailComparison {
  difference: number | null;
  p_value: number | null;
}

export function guardrailBreached(direction: GuardrailDirection, comparisons: readonly GuardrailComparison[], confidence = 0.95): boolean {
  const alpha = 1 - confidence;
  return comparisons.some(
    (c) => c.difference !== null && c.p_value !== null && c.p_value < alpha && (direction === 'increase' ? c.difference > 0 : c.difference < 0),
  );
}
