/**
 * A list (keys, experiments) as a table that becomes one labelled card per row below 600 px (each
 * cell carries its column's name in data-label); the last column, named for screen readers only,
 * holds each row's action.
 */
import type { ComponentChildren } from 'preact';

export function ListTable({ columns, action, name, children }: { columns: string[]; action: string; name?: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table class={name ? `stack ${name}` : 'stack'}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
            <th scope="col">
              <span class="visually-hidden">{action}</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** Items newest first by their created_at, as every list shows them. */
export function newestFirst<T extends { created_at: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => b.created_at.localeCompare(a.created_at));
}
