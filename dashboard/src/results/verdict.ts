/**
 * The verdict: one plain-language line per treatment on the primary metric (conversion to the goal
 * event), from the experiment's own analysis (lambdas/domain/primary-analysis.ts: its sequential and
 * correction settings, the figures of the metrics table and the experiments list), naming what it
 * rests on: each side's rate and users, the test and the p-value of the difference in rates (adjusted
 * where a correction applies; significant below ALPHA). Where no test is possible it says why, in
 * words that agree with every figure beside it:
 * - one side has no users: nothing to compare yet;
 * - both sides at the same all-or-nothing rate (everyone converted, or no one did): there is no
 *   variation to test, so there is no p-value.
 * Pure: unit-tested, and the results page renders it.
 */
import type { PrimaryAnalysis, PrimaryComparison } from '../../../lambdas/domain/primary-analysis';
import type { VariantStats } from '../admin-types';
import { formatCount, formatPercent, formatPStatement } from './format-stats';
import { CORRECTION_NAMES } from './correction-names';

export interface VerdictInput {
  analysis: PrimaryAnalysis;
  comparison: PrimaryComparison;
  /** The compared variant's and the control's per-variant counts. */
  variant: VariantStats;
  control: VariantStats;
  /** The control's name. */
  controlName: string;
  /** The goal event: the primary metric is conversion to it. */
  goal: string;
  /** "yet" only while the experiment runs. */
  running: boolean;
}

const side = (v: VariantStats) => `${formatPercent(v.conversion_rate)} of ${formatCount(v.enrolled)} ${v.enrolled === 1 ? 'user' : 'users'}`;

/** Why the p-value is missing, when it is: no users on a side, or no variation at all. */
export function untestable(variant: VariantStats, control: VariantStats): 'no-users' | 'all-converted' | 'none-converted' | null {
  if (variant.enrolled === 0 || control.enrolled === 0) return 'no-users';
  const converted = variant.converted + control.converted;
  if (converted === 0) return 'none-converted';
  if (converted === variant.enrolled + control.enrolled) return 'all-converted';
  return null;
}

/** The test in a few words: "sequential test, Holm-adjusted p = 0.012". */
export function decisionStatement(analysis: Pick<PrimaryAnalysis, 'sequential' | 'correction'>, p: number | null): string {
  const test = analysis.sequential ? 'sequential test' : 'fixed-horizon test';
  const adjusted = analysis.correction === null ? '' : `${CORRECTION_NAMES[analysis.correction]}-adjusted `;
  return `${test}, ${adjusted}${formatPStatement(p)}`;
}

export function verdict({ analysis, comparison, variant, control, controlName, goal, running }: VerdictInput): string {
  const a = comparison.variant;
  const c = controlName;
  const yet = running ? ' yet' : '';
  const why = untestable(variant, control);
  if (why === 'no-users') {
    const empty = [variant, control].filter((v) => v.enrolled === 0).map((v) => v.variant);
    return `Not enough data to compare ${a} with ${c}${yet}: no one is enrolled in ${empty.join(' or ')}.`;
  }
  if (why !== null) {
    const what = why === 'all-converted' ? `every user of both sent ${goal}` : `no user of either sent ${goal}`;
    return `No difference between ${a} and ${c}${yet}: ${what} (${side(variant)} against ${side(control)}), so there is no variation to test and no p-value.`;
  }
  const basis = `${side(variant)} against ${side(control)}`;
  if (comparison.outcome === 'not-testable') return `Not enough data to compare ${a} with ${c}${yet} (${basis}).`;
  const shown = decisionStatement(analysis, comparison.decision_p_value);
  if (comparison.outcome === 'better' || comparison.outcome === 'worse') return `${a} converts ${comparison.outcome} than ${c}: ${basis} (${shown}).`;
  return `No significant difference${yet} between ${a} and ${c}: ${basis} (${shown}).`;
}
