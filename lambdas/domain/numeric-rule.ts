/**
 * The numeric rule (docs/api.md, "The numeric rule"): when an event property's value is a number for
 * an analysis. The queries apply it in SQL, one text both engines run
 * (lambdas/adapters/sql/rules/property-number.sql); this module states it once in TypeScript, for the
 * documentation and for tests that predict what the queries answer (test/unit/numeric-rule.test.ts
 * checks the SQL uses the same pattern and bound). Pure.
 *
 * A value is a number when it is a JSON number, or a string in the JSON number form (an SDK that sends
 * prices as text: "12.50" is 12.5), and its magnitude is at most NUMBER_BOUND. Everything else is not
 * a number: absent, null, true, an object, a word, "NaN", "Infinity", "0x10", " 1", "1e400" (which a
 * double cannot hold), and any number beyond the bound such as 1e200 (whose square a double cannot
 * hold). Trends' sum and average skip such an event; an experiment's sum metric and the planner count
 * it as 0 (the user's other events still add up).
 *
 * Why 1e15: every sum an analysis computes stays finite. A user's total over a billion events is at
 * most 1e24, its square 1e48, and the sum of squares over a billion users 1e57, far below the largest
 * double (1.8e308). 1e15 is also the largest power of ten below 2^53, so every whole number within the
 * bound is exact: a quadrillion in the smallest unit of any currency.
 */
export const NUMBER_BOUND = 1e15;

/** The JSON number grammar (RFC 8259), as the SQL's regexp_like tests a value's text. */
export const JSON_NUMBER_PATTERN = '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$';
const JSON_NUMBER = new RegExp(JSON_NUMBER_PATTERN);

/** A property's value as a number under the rule, or null when it is not one. */
export function ruleNumber(value: unknown): number | null {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && JSON_NUMBER.test(value)) n = Number(value);
  else return null;
  return Number.isFinite(n) && Math.abs(n) <= NUMBER_BOUND ? n : null;
}
