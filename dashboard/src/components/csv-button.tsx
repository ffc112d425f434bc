/**
 * "Download CSV" under a table (trends, funnels, retention, the experiment results): the table read as
 * shown (each cell's text, or its data-csv where the cell shows parts that are laid out rather than
 * written), so the file holds exactly what the table says; the text by csv.ts.
 */
import type { RefObject } from 'preact';
import { toCsv } from '../csv';

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

export function CsvButton({ table, name, label }: { table: RefObject<HTMLTableElement | null>; name: string; label: string }) {
  return (
    <button
      type="button"
      class="secondary csv-button"
      aria-label={`Download CSV: ${label}`}
      onClick={() => table.current && downloadTableCsv(table.current, name)}
    >
      Download CSV
    </button>
  );
}
