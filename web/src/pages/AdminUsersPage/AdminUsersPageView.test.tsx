// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { makeAdminUser } from '../../../../tests/support/web/users.ts';
import { AdminUsersPageView, type AdminUsersPageViewProps } from './AdminUsersPageView.tsx';

afterEach(cleanup);

const user = makeAdminUser;

const users = [
  user(1, 'Anna Admin', null, true, false, { developer: true }),
  user(4, 'Sam Student', 'SD23', true),
  user(9, 'Rick Blom', null, true, true, { access_not_done: 'Nog niet gedaan: databases vergrendelen (ontwikkelserver dev1 is niet bereikbaar). Dit wordt vanzelf opnieuw geprobeerd.' }),
];

function renderView(overrides: Partial<AdminUsersPageViewProps> = {}) {
  const props: AdminUsersPageViewProps = {
    users,
    failed: false,
    loading: false,
    rows: users,
    cohorts: ['SD23'],
    filter: { name: '', cohort: '', notActivated: false },
    onFilterChange: vi.fn(),
    currentUserId: 1,
    busyId: null,
    status: null,
    onDismissStatus: vi.fn(),
    onAction: vi.fn(),
    onDeveloper: vi.fn(),
    deleting: null,
    onAskDelete: vi.fn(),
    onConfirmDelete: vi.fn(),
    ...overrides,
  };
  render(<AdminUsersPageView {...props} />);
  return props;
}

describe('AdminUsersPageView', () => {
  it('shows per row the delete icon, name, cohort or geen, and Disable or Activeer', () => {
    const props = renderView();
    const rows = screen.getAllByTestId('admin-user-row');
    expect(rows).toHaveLength(3);
    const sam = rows[1]!;
    expect(within(sam).getByRole('cell', { name: 'SD23' })).toBeTruthy();
    fireEvent.click(within(sam).getByRole('button', { name: 'Disable Sam Student' }));
    expect(props.onAction).toHaveBeenCalledWith(users[1], 'disable');
    const rick = rows[2]!;
    expect(within(rick).getByRole('cell', { name: 'geen' })).toBeTruthy();
    expect(within(rick).getByText('Uitgeschakeld')).toBeTruthy();
    fireEvent.click(within(rick).getByRole('button', { name: 'Activeer Rick Blom' }));
    expect(props.onAction).toHaveBeenCalledWith(users[2], 'verify');
    fireEvent.click(within(rick).getByRole('button', { name: 'Verwijder Rick Blom' }));
    expect(props.onAskDelete).toHaveBeenCalledWith(users[2]);
  });

  it('offers the signed-in admin no Disable, no delete and no clearing of their own developer flag', () => {
    renderView();
    const own = screen.getAllByTestId('admin-user-row')[0]!;
    expect((within(own).getByRole('button', { name: 'Verwijder Anna Admin' }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(own).getByRole('button', { name: 'Disable Anna Admin' }) as HTMLButtonElement).disabled).toBe(true);
    const flag = within(own).getByRole('checkbox', { name: 'Ontwikkelaar: Anna Admin' }) as HTMLInputElement;
    expect([flag.checked, flag.disabled]).toEqual([true, true]);
  });

  it('sets and clears the developer flag per row, and marks a row whose access a dev server has not followed yet', () => {
    const props = renderView();
    const [, sam, rick] = screen.getAllByTestId('admin-user-row');
    const flag = within(sam!).getByRole('checkbox', { name: 'Ontwikkelaar: Sam Student' }) as HTMLInputElement;
    expect(flag.checked).toBe(false);
    fireEvent.click(flag);
    expect(props.onDeveloper).toHaveBeenCalledWith(users[1], true);
    const pending = within(rick!).getByText('Wacht op ontwikkelserver');
    expect(pending.getAttribute('title')).toMatch(/^Nog niet gedaan: databases vergrendelen/);
    expect(within(sam!).queryByText('Wacht op ontwikkelserver')).toBeNull();
  });

  it('shows a warning status as an alert with the server’s text, until it is closed', () => {
    const props = renderView({ status: { text: 'Rick Blom is uitgeschakeld. Nog niet gedaan: databases vergrendelen.', tone: 'warning' } });
    const alert = screen.getByRole('alert');
    expect(alert.parentElement?.className).toContain('user-status-warning');
    expect(alert.textContent).toBe('Rick Blom is uitgeschakeld. Nog niet gedaan: databases vergrendelen.');
    fireEvent.click(screen.getByRole('button', { name: 'Sluiten' }));
    expect(props.onDismissStatus).toHaveBeenCalled();
  });

  it('has the checkbox Niet geactiveerd and reports filter changes', () => {
    const props = renderView();
    fireEvent.click(screen.getByRole('checkbox', { name: 'Niet geactiveerd' }));
    expect(props.onFilterChange).toHaveBeenCalledWith({ name: '', cohort: '', notActivated: true });
    fireEvent.change(screen.getByLabelText('Klas'), { target: { value: 'geen' } });
    expect(props.onFilterChange).toHaveBeenCalledWith({ name: '', cohort: 'geen', notActivated: false });
  });

  it('shows the delete confirmation with the server refusal, and cancels on Escape', () => {
    const refusal = 'Sam Student is uitgeschakeld maar nog niet verwijderd: ontwikkelserver dev1 antwoordde niet of weigerde.';
    const props = renderView({ deleting: { user: users[1]!, busy: false, error: refusal } });
    const dialog = screen.getByRole('dialog', { name: 'Sam Student verwijderen?' });
    for (const topic of ['Projecten:', 'Databases:', 'VPN-configuratie:', 'SSH keys:']) expect(within(dialog).getByText(topic)).toBeTruthy();
    expect(within(dialog).getByText(/Projecten waarin Sam Student het enige lid is, worden met container en al verwijderd/)).toBeTruthy();
    expect(within(dialog).getByRole('alert').textContent).toBe(refusal);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Ja, verwijderen' }));
    expect(props.onConfirmDelete).toHaveBeenCalled();
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(props.onAskDelete).toHaveBeenCalledWith(null);
  });
});
