/**
 * The text rule: what Tally accepts as text from clients (docs/api.md, "Text from clients"; the
 * reasons in docs/decisions/client-text.md). Applied before anything is stored or looked up, by
 * ingestion (domain/event.ts), GET /v1/experiments and the admin API (as zod, client-text-schema.ts).
 *
 *  1. Every string must be well-formed Unicode: no unpaired UTF-16 surrogate (a JSON escape \ud800-
 *     \udfff that is not half of a pair; a string cut inside an emoji has one). UTF-8, which DynamoDB
 *     keys, the raw files and both query engines use, cannot encode one: dynalite and TextEncoder
 *     turn it into U+FFFD, so two different IDs would become one key; DuckDB's JSON reader refuses
 *     the whole line; nothing in AWS's documentation promises what DynamoDB or Athena do with it.
 *  2. IDs, names and property keys (text Tally looks up or matches) must not contain U+0000 (NUL): a
 *     SQL literal of the events listing or the results query cannot carry it. NUL in a property value
 *     is data and is kept: JSON writes it as the escape \u0000, which DuckDB and Athena read back.
 *
 * Other control characters are allowed everywhere: every store and engine keeps them as sent.
 */

export const NOT_WELL_FORMED = 'is not well-formed Unicode: it contains an unpaired UTF-16 surrogate (such as half of an emoji cut off)';
export const HAS_NUL = 'contains U+0000 (NUL), which Tally does not accept in IDs, names and property keys';

/**
 * Whether a string has an unpaired surrogate: a high one (D800-DBFF) not followed by a low one
 * (DC00-DFFF), or a low one not preceded by a high one. A loop, not a regex: the lookbehind such a
 * regex needs is a syntax error in the browsers the dashboard still supports (Safari before 16.4).
 */
export function hasLoneSurrogate(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit > 0xdbff) return true;
    const next = value.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
    i++;
  }
  return false;
}

/** String.prototype.isWellFormed (Node 20, current browsers; native, so cheap per event), else hasLoneSurrogate. */
export const isWellFormed: (value: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (value) => (value as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (value) => !hasLoneSurrogate(value);

/** Why a string cannot be an ID, a name or a property key (rules 1 and 2), or undefined when it can. */
export function textProblem(label: string, value: string): string | undefined {
  if (!isWellFormed(value)) return `${label} ${NOT_WELL_FORMED}`;
  if (value.includes('\u0000')) return `${label} ${HAS_NUL}`;
  return undefined;
}

/**
 * Why a string cannot be a value a query compares property values with (a funnel step's filter), or
 * undefined when it can: well-formed (rule 1), and without NUL, which events may hold in a property
 * value but the query's SQL text cannot carry.
 */
export function filterValueProblem(label: string, value: string): string | undefined {
  if (!isWellFormed(value)) return `${label} ${NOT_WELL_FORMED}`;
  if (value.includes('\u0000')) {
    return `${label} contains U+0000 (NUL): a filter value is written into the query, which cannot carry it; filter on the value without it`;
  }
  return undefined;
}

/** Why a string cannot be stored as free text, such as a property value (rule 1), or undefined when it can. */
export function freeTextProblem(label: string, value: string): string | undefined {
  return isWellFormed(value) ? undefined : `${label} ${NOT_WELL_FORMED}`;
}
