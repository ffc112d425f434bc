/**
 * The property-name rule: which event property names an analysis can read (docs/api.md, "Property
 * names"). One rule for every place a client names a property: a trends series' sum or average, a
 * trends or funnels breakdown by property, a funnel step's filter, an experiment's `sum` metric and
 * the planner's `sum` metric.
 *
 * A name is readable when an event can carry it as a key (the text rule of client-text.ts: well-formed
 * Unicode without U+0000), it is not empty and it has at most PROPERTY_NAME_MAX_LENGTH characters.
 * Nothing else is refused: a name is a key, read literally, whatever it looks like. `*`, `[*]`, `..`,
 * `$`, `a.b`, brackets, quotes, backslashes, spaces and control characters name the key spelled that
 * way, never a JSON-path operator: the queries address the key in a form each engine reads literally
 * (lambdas/adapters/sql/property-path.ts: Trino's quoted subscript `$["…"]` with `\"` and `\\`
 * escapes on Athena, a JSON pointer on DuckDB). Pure.
 */
import * as z from 'zod';
import { textProblem } from './client-text';

/** The longest property name an analysis reads (as long as an experiment metric's property has always been). */
export const PROPERTY_NAME_MAX_LENGTH = 255;

/** Why `name` cannot name a property an analysis reads (the message names `field`), or undefined when it can. */
export function propertyNameProblem(field: string, name: string): string | undefined {
  if (name === '') return `${field} must not be empty`;
  if (name.length > PROPERTY_NAME_MAX_LENGTH) return `${field} is longer than ${PROPERTY_NAME_MAX_LENGTH} characters`;
  return textProblem(field, name);
}

/**
 * The rule as a zod schema for a request field: a string (else `${field} is required: ${what}` or
 * `${field} must be a string: ${what}`), then propertyNameProblem.
 */
export function propertyNameSchema(field: string, what: string) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required: ${what}` : `${field} must be a string: ${what}`) })
    .superRefine((value, ctx) => {
      const message = propertyNameProblem(field, value);
      if (message) ctx.addIssue({ code: 'custom', message });
    });
}
