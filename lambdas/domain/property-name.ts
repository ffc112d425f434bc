/**
 * The property-name rule: which event property names an analysis can read (docs/api.md, "Property
 * names"). One rule for every place a client names a property: a trends series' sum or average, a
 * trends or funnels breakdown by property, a funnel step's filter, an experiment's `sum` metric and
 * the planner's `sum` metric.
 *
 * A name is readable when an event can carry it as a key (the text rule of client-text.ts: well-formed
 * Unicode without U+0000), it is not empty, it has at most PROPERTY_NAME_MAX_LENGTH characters, and it
 * has no double quote and no backslash. Every other name is a key read literally, whatever it looks
 * like: `*`, `[*]`, `..`, `$`, `a.b`, `a[0]`, brackets, single quotes, spaces and control characters
 * name the key spelled that way, never a JSON-path operator. The queries address the key in a form each
 * engine reads literally (lambdas/adapters/sql/property-path.ts): Trino's quoted subscript `$["…"]` on
 * Athena, as Tally's queries always have, and a JSON pointer on DuckDB.
 *
 * Why a double quote and a backslash are refused: inside `$["…"]` they would need escapes (`\"`,
 * `\\`). Trino's tokenizer reads those, but neither the Athena nor the Trino documentation states
 * it, and no Athena runs here to show it (docs/decisions/property-names.md), so such a name is refused
 * with a 400 that says so rather than accepted on one engine and misread on the other. Pure.
 */
import * as z from 'zod';
import { textProblem } from './client-text';

/** The longest property name an analysis reads (as long as an experiment metric's property has always been). */
export const PROPERTY_NAME_MAX_LENGTH = 255;

/** The characters no readable property name has (see above). */
export const PROPERTY_NAME_UNREADABLE = /["\\]/;

/** Why `name` cannot name a property an analysis reads (the message names `field`), or undefined when it can. */
export function propertyNameProblem(field: string, name: string): string | undefined {
  if (name === '') return `${field} must not be empty`;
  if (name.length > PROPERTY_NAME_MAX_LENGTH) return `${field} is longer than ${PROPERTY_NAME_MAX_LENGTH} characters`;
  const text = textProblem(field, name);
  if (text) return text;
  if (PROPERTY_NAME_UNREADABLE.test(name)) {
    return `${field} must not contain a double quote (") or a backslash (\\): no JSON path reads such a key alike on every engine; every other character is read literally, JSON-path syntax such as * [*] .. $ included`;
  }
  return undefined;
}

/**
 * The rule as a zod schema for a request field: a string (else `${field} is required: ${what}` or
 * `${field} must be a string: ${what}`), then propertyNameProblem, one message for one mistake. The
 * length bounds are zod's own, so the OpenAPI document (lambdas/openapi.ts) states them.
 */
export function propertyNameSchema(field: string, what: string) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? `${field} is required: ${what}` : `${field} must be a string: ${what}`) })
    .min(1, `${field} must not be empty`)
    .max(PROPERTY_NAME_MAX_LENGTH, `${field} is longer than ${PROPERTY_NAME_MAX_LENGTH} characters`)
    .superRefine((value, ctx) => {
      if (value === '' || value.length > PROPERTY_NAME_MAX_LENGTH) return; // said by min and max
      const message = propertyNameProblem(field, value);
      if (message) ctx.addIssue({ code: 'custom', message });
    })
    .describe(`${what}: an event property's name, read literally (JSON-path syntax such as * [*] .. $ included); no double quote or backslash`);
}
