/** "Download CSV" under a table: the table as shown, as a file (csv.ts). */
import type { RefObject } from 'preact';
import { downloadTableCsv } from '../csv';

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
