/**
 * The verdict: one plain-language line per treatment on the primary metric (conversion to the goal
 * event), naming what it rests on: each side's rate and users, and the two-sided p-value of the
 * difference in rates (significant below ALPHA). Where no test is possible it says why, in words
 * that agree with every figure beside it (issue 22):
 * - one side has no users: nothing to compare yet;
 * - both sides at the same all-or-nothing rate (everyone converted, or no one did): there is no
 *   variation to test, so there is no p-value; the chance to beat control then comes from the prior
 *   and the group sizes alone, and the line says so rather than "not enough data".
 * Pure: unit-tested, and the results page renders it.
 */
import type { Comparison, VariantStats } from '../admin-types';
import { ALPHA, formatChance, formatCount, formatPercent, formatPStatement } from './format-stats';

export interface VerdictInput {
  comparison: Comparison;
  /** The compared variant's and the control's per-variant figures. */
  variant: VariantStats;
  control: VariantStats;
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

export function verdict({ comparison, variant, control, goal, running }: VerdictInput): string {
  const a = comparison.variant;
  const c = comparison.control;
  const yet = running ? ' yet' : '';
  const why = untestable(variant, control);
  if (why === 'no-users') {
    const empty = [variant, control].filter((v) => v.enrolled === 0).map((v) => v.variant);
    return `Not enough data to compare ${a} with ${c}${yet}: no one is enrolled in ${empty.join(' or ')}.`;
  }
  if (why !== null) {
    const chance = comparison.chance_to_beat_control;
    const what = why === 'all-converted' ? `every user of both sent ${goal}` : `no user of either sent ${goal}`;
    return (
      `No difference between ${a} and ${c}${yet}: ${what} (${side(variant)} against ${side(control)}), so there is no variation to test and no p-value.` +
      (chance === null ? '' : ` The ${formatChance(chance)} chance to beat control comes from the prior and the group sizes alone, not from a difference.`)
    );
  }
  const { p_value: p, absolute_diff: diff } = comparison;
  const basis = `${side(variant)} against ${side(control)}`;
  if (p === null || diff === null) return `Not enough data to compare ${a} with ${c}${yet} (${basis}).`;
  const shown = formatPStatement(p);
  if (p < ALPHA && diff !== 0) return `${a} converts ${diff > 0 ? 'better' : 'worse'} than ${c}: ${basis} (${shown}).`;
  return `No significant difference${yet} between ${a} and ${c}: ${basis} (${shown}).`;
}
