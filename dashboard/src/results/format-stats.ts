/**
 * Numbers of the results page formatted for people: rates and chances as percentages with sensible
 * decimals, differences signed (percentage points for the absolute difference), p-values with a
 * floor, and "—" for anything the statistics could not compute (null). Pure: unit-tested.
 */

export const NOT_COMPUTABLE = '—';
const MINUS = '\u2212';

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** 0.1234 → "12.3%", 0.004567 → "0.46%", 0 → "0%", 1 → "100%". */
export function formatPercent(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || !Number.isFinite(rate)) return NOT_COMPUTABLE;
  const pct = rate * 100;
  const decimals = pct !== 0 && Math.abs(pct) < 1 ? 2 : 1;
  return `${signless(trimZeros(pct.toFixed(decimals)))}%`;
}

/** "-0" from rounding a tiny negative becomes "0"; a real minus becomes the typographic one. */
function signless(text: string): string {
  if (/^-0(\.0*)?$/.test(text)) return '0';
  return text.replace('-', MINUS);
}

function signed(text: string): string {
  if (text === '0') return text;
  return text.startsWith(MINUS) ? text : `+${text}`;
}

/** An absolute difference of rates in percentage points: 0.032 → "+3.2 pp", -0.0015 → "−0.15 pp". */
export function formatPoints(diff: number | null | undefined): string {
  if (diff === null || diff === undefined || !Number.isFinite(diff)) return NOT_COMPUTABLE;
  return `${signed(formatPercent(diff).slice(0, -1))} pp`;
}

/** A relative difference: 0.0667 → "+6.7%", -0.25 → "−25%". */
export function formatRelative(diff: number | null | undefined): string {
  if (diff === null || diff === undefined || !Number.isFinite(diff)) return NOT_COMPUTABLE;
  return signed(formatPercent(diff));
}

/** "a to b" with the given formatter, "—" when either end is missing. */
export function formatInterval(low: number | null | undefined, high: number | null | undefined, format: (n: number | null) => string): string {
  if (low === null || low === undefined || high === null || high === undefined) return NOT_COMPUTABLE;
  return `${format(low)} to ${format(high)}`;
}

/** 0.0004 → "< 0.001", 0.0123 → "0.012", 0.4567 → "0.46", 1 → "1". */
export function formatPValue(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return NOT_COMPUTABLE;
  if (p < 0.001) return '< 0.001';
  return trimZeros(p.toFixed(p < 0.1 ? 3 : 2));
}

/** A probability as a percentage, never a false certainty: 0.99995 → "> 99.9%", 0.00001 → "< 0.1%". */
export function formatChance(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return NOT_COMPUTABLE;
  if (p > 0.999) return '> 99.9%';
  if (p < 0.001) return '< 0.1%';
  return `${trimZeros((p * 100).toFixed(1))}%`;
}

/** 12345 → "12,345". */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** A p-value in a sentence: "p = 0.012", "p < 0.001", "p —". */
export function formatPStatement(p: number | null | undefined): string {
  const text = formatPValue(p);
  return text.startsWith('<') ? `p ${text}` : text === NOT_COMPUTABLE ? `p ${text}` : `p = ${text}`;
}
