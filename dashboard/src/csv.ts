/**
 * The CSV text of the tables the dashboard offers as downloads (components/csv-button.tsx). RFC 4180 quoting by
 * papaparse's unparse; a text cell starting with = + - @ tab or carriage return is prefixed with a
 * single quote, as OWASP's "CSV Injection" page recommends, so a spreadsheet does not run event values
 * as formulas (plain numbers such as -6.6% stay numbers).
 */
import Papa from 'papaparse';

/** A cell a spreadsheet could take for a formula, apart from a plain (signed) number or percentage. */
export const FORMULA_START = /^(?![-+]?[\d.,]+%?$)[=+\-@\t\r]/;

/** Rows as CSV text (CRLF line ends, fields quoted where RFC 4180 needs it, formulas neutralised). */
export function toCsv(rows: string[][]): string {
  return Papa.unparse(rows, { escapeFormulae: FORMULA_START, newline: '\r\n' });
}
