/**
 * CSV downloads of the tables the dashboard shows (trends, funnels, retention, the experiment results):
 * read from the table as shown (each cell's text, or its data-csv where the cell shows parts that are
 * laid out rather than written), so the file holds exactly what the table says. RFC 4180 quoting by
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

const cellText = (cell: Element) => ((cell as HTMLElement).dataset.csv ?? cell.textContent ?? '').replace(/\s+/g, ' ').trim();

/** The rows of a table as shown: the header row(s), then the body rows (a caption for screen readers is not a row). */
export function tableRows(table: HTMLTableElement): string[][] {
  return Array.from(table.rows).map((row) => Array.from(row.cells).map(cellText));
}

/** Offers the table as a CSV file named `<name>.csv`. */
export function downloadTableCsv(table: HTMLTableElement, name: string): void {
  // A byte order mark, so spreadsheets read the file as UTF-8 (event values may be in any script).
  const blob = new Blob(['\uFEFF', toCsv(tableRows(table))], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'table'}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
