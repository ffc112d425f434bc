/**
 * The snake_case of the existing MGM SDKs (JavaScript 0.10.0 and its siblings), which name the
 * `$experiment_<name>` super property with it. It differs from Tally's snakeCase, so an event
 * carrying only that super property must still enroll: "Hero Banner" is hero__banner here and
 * hero_banner in Tally.
 *
 * The rule, as the SDKs apply it: each ASCII capital letter becomes "_" and the letter; then each run
 * of whitespace or hyphens becomes one "_"; then the whole text is lower-cased; then one leading "_"
 * is removed. Nothing else changes: digits, dots, other punctuation and non-ASCII letters stay.
 * "checkoutFlow" -> checkout_flow, "Hero Banner" -> hero__banner, "ABTest" -> a_b_test.
 */
export function sdkSnakeCase(name: string): string {
  let out = '';
  let inSeparatorRun = false;
  for (const ch of name) {
    const separator = ch === '-' || /\s/.test(ch);
    if (separator) {
      if (!inSeparatorRun) out += '_';
      inSeparatorRun = true;
      continue;
    }
    inSeparatorRun = false;
    out += ch >= 'A' && ch <= 'Z' ? `_${ch}` : ch;
  }
  // Lower-case the whole text at once, as the SDK does (context-dependent letters such as a final sigma).
  out = out.toLowerCase();
  return out.startsWith('_') ? out.slice(1) : out;
}
