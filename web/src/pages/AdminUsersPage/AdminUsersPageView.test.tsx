// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { AdminUser } from '../../api/queries/adminUsers.ts';
import { AdminUsersPageView, type AdminUsersPageViewProps } from './AdminUsersPageView.tsx';

afterEach(cleanup);

const user = (id: number, name: string, cohort: string | null, verified: boolean, disabled = false): AdminUser => ({
  id,
  name,
  email: `u${id}@devplein.test`,
  group: cohort === null ? null : { id, cohort },
  email_verified_at: verified ? '2024-01-01T00:00:00.000Z' : null,
  disabled_at: disabled ? '2024-02-01T00:00:00.000Z' : null,
});

const users = [user(1, 'Anna Admin', null, true), user(4, 'Sam Student', 'SD23', true), user(9, 'Rick Blom', null, true, true)];

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
    onAction: vi.fn(),
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

  it('offers the signed-in admin no Disable and no delete on their own row', () => {
    renderView();
    const own = screen.getAllByTestId('admin-user-row')[0]!;
    expect((within(own).getByRole('button', { name: 'Verwijder Anna Admin' }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(own).getByRole('button', { name: 'Disable Anna Admin' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('has the checkbox Niet geactiveerd and reports filter changes', () => {
    const props = renderView();
    fireEvent.click(screen.getByRole('checkbox', { name: 'Niet geactiveerd' }));
    expect(props.onFilterChange).toHaveBeenCalledWith({ name: '', cohort: '', notActivated: true });
    fireEvent.change(screen.getByLabelText('Klas'), { target: { value: 'geen' } });
    expect(props.onFilterChange).toHaveBeenCalledWith({ name: '', cohort: 'geen', notActivated: false });
  });

  it('shows the delete confirmation with the server refusal, and cancels on Escape', () => {
    const props = renderView({ deleting: { user: users[1]!, busy: false, error: 'Sam Student kan nog niet verwijderd worden.' } });
    const dialog = screen.getByRole('dialog', { name: 'Sam Student verwijderen?' });
    for (const topic of ['Projecten:', 'Databases:', 'VPN-configuratie:', 'SSH keys:']) expect(within(dialog).getByText(topic)).toBeTruthy();
    expect(within(dialog).getByRole('alert').textContent).toBe('Sam Student kan nog niet verwijderd worden.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Ja, verwijderen' }));
    expect(props.onConfirmDelete).toHaveBeenCalled();
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(props.onAskDelete).toHaveBeenCalledWith(null);
  });
});
