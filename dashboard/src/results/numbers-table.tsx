/**
 * A table of results numbers (right-aligned, tabular figures) in a labelled frame that scrolls
 * sideways on narrow screens and can be scrolled with the keyboard; each row starts with its name
 * (a row header).
 */
import type { ComponentChildren } from 'preact';

export interface NumbersTableProps {
  /** The frame's accessible name. */
  label: string;
  columns: string[];
  /** data-table, for tests and styles. */
  name?: string;
  /** A caption for screen readers, when the label alone does not say enough. */
  caption?: string;
  children: ComponentChildren;
}

export function NumbersTable({ label, columns, name, caption, children }: NumbersTableProps) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table class="results-table" data-table={name}>
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
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
