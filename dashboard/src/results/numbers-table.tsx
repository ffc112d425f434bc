/**
 * A table of results numbers (right-aligned, tabular figures) in a labelled frame; each row starts with
 * its name (a row header). Below 600 px each row becomes a card: its name, then one "label value" line
 * per number, so every number (the intervals too) is on screen without sideways scrolling. The cells
 * get their labels (data-label) from the columns here, so the pages write plain rows. Rows may come in
 * groups: children that are <tbody> elements (each, e.g., a header row and its rows) are kept as
 * they are, their rows labelled the same way.
 */
import type { ComponentChildren, VNode } from 'preact';
import { cloneElement, isValidElement, toChildArray } from 'preact';
import { useRef } from 'preact/hooks';
import { CsvButton } from '../components/csv-button';

export interface NumbersTableProps {
  /** The frame's accessible name. */
  label: string;
  columns: string[];
  /** The cards' labels, column by column, where a column's heading alone is ambiguous out of the table (default: the columns). */
  cardLabels?: string[];
  /** data-table, for tests and styles. */
  name?: string;
  /** A caption for screen readers, when the label alone does not say enough. */
  caption?: string;
  /** The file name (without .csv) of a "Download CSV" button under the table; no button when absent. */
  csv?: string;
  children: ComponentChildren;
}

/** Each <td> of each row gets data-label: the label of its column. */
function labelled(rows: ComponentChildren, labels: string[]): ComponentChildren {
  return toChildArray(rows).map((row) => {
    if (!isValidElement(row)) return row;
    const cells = toChildArray((row as VNode<{ children?: ComponentChildren }>).props.children).map((cell, i) =>
      isValidElement(cell) && cell.type === 'td' ? cloneElement(cell as VNode<Record<string, unknown>>, { 'data-label': labels[i] }) : cell,
    );
    return cloneElement(row, {}, ...cells);
  });
}

export function NumbersTable({ label, columns, cardLabels, name, caption, csv, children }: NumbersTableProps) {
  const table = useRef<HTMLTableElement>(null);
  const labels = cardLabels ?? columns;
  const items = toChildArray(children);
  const grouped = items.some((item) => isValidElement(item) && item.type === 'tbody');
  const frame = (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table class="results-table" data-table={name} ref={table}>
        {caption && <caption class="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th scope="col" key={i}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        {grouped ? (
          items.map((group) =>
            isValidElement(group) ? cloneElement(group, {}, labelled((group as VNode<{ children?: ComponentChildren }>).props.children, labels)) : group,
          )
        ) : (
          <tbody>{labelled(children, labels)}</tbody>
        )}
      </table>
    </div>
  );
  if (csv === undefined) return frame;
  return (
    <>
      {frame}
      <CsvButton table={table} name={csv} label={label} />
    </>
  );
}
