/**
 * A metric's numbers formatted for people, by kind (issue 22): a conversion's mean is a rate (a
 * percentage, its differences in percentage points), a count's and a sum's a number per user (three
 * significant figures, signed differences). Pure: unit-tested.
 */
import type { MetricKind } from '../../../lambdas/domain/metric-moments';
import { formatPercent, formatPoints, NOT_COMPUTABLE } from './format-stats';

const MINUS = '\u2212';

/** 1234.5 → "1,235", 12.345 → "12.3", 0.012345 → "0.0123": three significant figures, at least the whole part. */
export function formatAmount(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return NOT_COMPUTABLE;
  if (x === 0) return '0';
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(x))));
  const text = Number(x.toFixed(Math.min(digits, 6))).toLocaleString('en-US', { maximumFractionDigits: Math.min(digits, 6) });
  return text === '-0' ? '0' : text.replace('-', MINUS);
}

/** A mean per enrolled user. */
export function formatMetricMean(kind: MetricKind, mean: number | null | undefined): string {
  return kind === 'conversion' ? formatPercent(mean) : formatAmount(mean);
}

/** A mean with its standard error: "12.3% ± 0.4 pp", "3.52 ± 0.081". */
export function formatMeanWithError(kind: MetricKind, mean: number | null | undefined, stdError: number | null | undefined): string {
  const m = formatMetricMean(kind, mean);
  if (m === NOT_COMPUTABLE || stdError === null || stdError === undefined || !Number.isFinite(stdError)) return m;
  return kind === 'conversion' ? `${m} ± ${formatPoints(stdError).replace('+', '')}` : `${m} ± ${formatAmount(stdError)}`;
}

/** An absolute difference of means: percentage points for a conversion, a signed number otherwise. */
export function formatMetricDifference(kind: MetricKind, diff: number | null | undefined): string {
  if (kind === 'conversion') return formatPoints(diff);
  const text = formatAmount(diff);
  return text === NOT_COMPUTABLE || text === '0' || text.startsWith(MINUS) ? text : `+${text}`;
}
