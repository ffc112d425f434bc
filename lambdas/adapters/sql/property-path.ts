/**
 * The JSON path of an event property in the queries both engines run (docs/api.md, "Property names";
 * the rule of readable names is domain/property-name.ts). Pure.
 *
 * The path is Trino's quoted subscript `$["<name>"]`: Trino's JSON path tokenizer (json_extract_scalar,
 * Athena engine 3) reads every character of a quoted subscript but `"` and `\` literally, so `$["*"]`
 * is the key `*`, not a wildcard, and `$["a.b"]` the key `a.b`; the rule refuses names with `"` or
 * `\`. DuckDB's json_extract_scalar macro (duckdb-results-query.ts TRINO_COMPAT_MACROS) turns this one
 * form into a JSON pointer (RFC 6901, `/` + the name with `~` as `~0` and `/` as `~1`), which DuckDB
 * also reads literally: its own `$."…"` form would read `*` as a wildcard.
 */
import { propertyNameProblem } from '../../domain/property-name';
import { SqlRenderError } from './render-error';

/** `$["<name>"]` for a name the property-name rule accepts; SqlRenderError for any other (the API refuses it first). */
export function propertyPath(name: string, field = 'property'): string {
  const problem = propertyNameProblem(field, name);
  if (problem) throw new SqlRenderError(problem);
  return `$["${name}"]`;
}
