/**
 * The smallest EventBridge event-pattern matcher for the operators Tally's rules use: exact string
 * values and `prefix`. No maintained npm package implements EventBridge's matching (AWS's own
 * implementation, event-ruler, is Java; the npm packages found were a serverless-offline plugin's
 * internals and an unpublished library), so this follows the user guide's rules for exactly these two:
 * "Event patterns" (a pattern matches when every field it names matches; the values in a field's
 * array are alternatives; an event field that is an array matches when any of its values does; a
 * field absent from the event does not match) and "Comparison operators" (`prefix`: the value begins
 * with the string). Any other operator throws, so a rule using one cannot pass unchecked.
 */

type Pattern = { [field: string]: Pattern | Array<string | { prefix: string }> };

function leafMatches(matchers: Array<string | { prefix: string }>, value: unknown): boolean {
  const values = Array.isArray(value) ? value : [value];
  return matchers.some((m) => {
    if (typeof m === 'string') return values.some((v) => v === m);
    const keys = Object.keys(m);
    if (keys.length !== 1 || keys[0] !== 'prefix' || typeof m.prefix !== 'string') {
      throw new Error(`operator ${JSON.stringify(m)} is not one this matcher implements (exact strings and prefix only)`);
    }
    return values.some((v) => typeof v === 'string' && v.startsWith(m.prefix));
  });
}

export function matchesEventPattern(pattern: Pattern, event: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([field, sub]) => {
    if (!(field in event)) return false;
    const value = event[field];
    if (Array.isArray(sub)) return leafMatches(sub, value);
    return value !== null && typeof value === 'object' && !Array.isArray(value) && matchesEventPattern(sub, value as Record<string, unknown>);
  });
}
