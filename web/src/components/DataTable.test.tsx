// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { DataTable } from './DataTable.tsx';

afterEach(cleanup);

const columns = [{ header: 'Naam' }, { header: 'Aantal', className: 'numeric' }, { header: <span className="visually-hidden">Verwijderen</span> }];

describe('DataTable', () => {
  it('renders the card, the column heads and one row per item', () => {
    const { container } = render(
      <DataTable
        columns={columns}
        rows={[{ id: 1, name: 'a' }, { id: 2, name: 'b' }]}
        className="extra-table"
        testId="tabel"
        before={<p>boven</p>}
        after={<p>onder</p>}
        renderRow={(row) => (
          <tr key={row.id}>
            <td>{row.name}</td>
            <td className="numeric">{row.id}</td>
            <td />
          </tr>
        )}
      />,
    );
    const table = screen.getByTestId('tabel');
    expect(table.className).toBe('data-table extra-table');
    expect(container.querySelector('.card.table-card > p:first-child')?.textContent).toBe('boven');
    expect(container.querySelector('.card.table-card > p:last-child')?.textContent).toBe('onder');
    const heads = [...table.querySelectorAll('thead th')];
    expect(heads.map((head) => head.textContent)).toEqual(['Naam', 'Aantal', 'Verwijderen']);
    expect(heads.map((head) => head.getAttribute('scope'))).toEqual(['col', 'col', 'col']);
    expect(heads[1]?.className).toBe('numeric');
    expect(heads[0]?.hasAttribute('class')).toBe(false);
    expect(table.querySelectorAll('tbody tr')).toHaveLength(2);
  });

  it('shows the empty text in a row across all columns, or no rows without one', () => {
    render(<DataTable columns={columns} rows={[] as number[]} testId="leeg" emptyText="Niets." renderRow={() => null} />);
    const cell = screen.getByTestId('leeg').querySelector('tbody td');
    expect(cell?.textContent).toBe('Niets.');
    expect(cell?.getAttribute('colspan')).toBe('3');
    cleanup();
    render(<DataTable columns={columns} rows={[] as number[]} testId="leeg" renderRow={() => null} />);
    expect(screen.getByTestId('leeg').querySelectorAll('tbody tr')).toHaveLength(0);
    expect(screen.getByTestId('leeg').className).toBe('data-table');
  });
});
