import type { ReactNode } from 'react';

export interface DataTableColumn {
  /** The column head: text, or e.g. a visually hidden label for a column of buttons. */
  header: ReactNode;
  className?: string;
}

export interface DataTableProps<T> {
  columns: readonly DataTableColumn[];
  rows: readonly T[];
  /** One `<tr>` (with its key) per row: the admin tables' cells differ too much to describe here. */
  renderRow: (row: T) => ReactNode;
  /** Classes after 'data-table', e.g. 'licenses-table'. */
  className?: string;
  testId?: string;
  /** A muted row across all columns when there are no rows; without it an empty table has no rows. */
  emptyText?: ReactNode;
  /** Inside the card, above and below the scrolling table (e.g. '12 gebruikers', '3 van 10 projecten'). */
  before?: ReactNode;
  after?: ReactNode;
}

/**
 * What the admin tables share: a card that scrolls the table sideways on a small screen, a head
 * row of column headers (scope col), and the rows. The phone layout ('data-label' cards) and the
 * empty messages outside the table stay with each page.
 */
export function DataTable<T>({ columns, rows, renderRow, className, testId, emptyText, before, after }: DataTableProps<T>) {
  return (
    <div className="card table-card">
      {before}
      <div className="table-scroll">
        <table className={className === undefined ? 'data-table' : `data-table ${className}`} data-testid={testId}>
          <thead>
            <tr>
              {columns.map((column, index) => (
                <th key={index} scope="col" className={column.className}>
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && emptyText !== undefined ? (
              <tr>
                <td colSpan={columns.length} className="muted">
                  {emptyText}
                </td>
              </tr>
            ) : (
              rows.map(renderRow)
            )}
          </tbody>
        </table>
      </div>
      {after}
    </div>
  );
}
