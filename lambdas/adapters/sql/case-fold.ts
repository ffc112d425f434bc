/**
 * A case fold both query engines apply alike (docs/decisions/people-search.md, "Ignoring case"):
 * translate(text, FROM, TO) with an explicit table of upper-case letters and their lower-case
 * letters, one code point for one. `lower()` leaves each engine to its own Unicode tables (DuckDB's
 * utf8proc, Athena's Java), which can disagree (U+0130 `İ`: DuckDB gives `i`); translate() replaces
 * code point by code point from the table the text itself carries, the same on both (Trino and DuckDB
 * document it alike). The table covers Latin (ASCII, Latin-1, Latin Extended-A), Greek and Cyrillic;
 * a letter with no one-code-point lower case (`İ`, whose lower case is `i` plus a combining dot) is
 * left as it is, so it matches itself only. Pure.
 */
import { quoteLiteral } from './render';

const RANGES: Array<[number, number]> = [
  [0x41, 0x5a], // A-Z
  [0xc0, 0xde], // Latin-1 capitals (× excluded: it has no lower case)
  [0x100, 0x17f], // Latin Extended-A
  [0x386, 0x3ab], // Greek capitals
  [0x400, 0x42f], // Cyrillic capitals
];

function table(): { from: string; to: string } {
  let from = '';
  let to = '';
  for (const [first, last] of RANGES) {
    for (let cp = first; cp <= last; cp++) {
      const upper = String.fromCodePoint(cp);
      const lower = upper.toLowerCase();
      if (lower !== upper && [...lower].length === 1) {
        from += upper;
        to += lower;
      }
    }
  }
  return { from, to };
}

const { from: FROM, to: TO } = table();

/** The SQL expression of `expr` case-folded (translate with the table): the same text on both engines. */
export function caseFold(expr: string): string {
  return `translate(${expr}, ${quoteLiteral(FROM)}, ${quoteLiteral(TO)})`;
}

/** The same fold in JavaScript (for tests and for text compared outside the engines). */
export function caseFoldText(text: string): string {
  const map = new Map([...FROM].map((c, i) => [c, [...TO][i]!]));
  return [...text].map((c) => map.get(c) ?? c).join('');
}
