// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UserDatabase } from '../../api/queries/databases.ts';
import { DATABASE_NAME_MESSAGES } from '@devplein/contract/validation/databaseName';
import { DatabasesPageView, MASKED_PASSWORD, type DatabasesPageViewProps } from './DatabasesPageView.tsx';

afterEach(cleanup);

const abc: UserDatabase = { id: 4, name: 'u12_abc', user: 'u12_abc', password: 'Geheim2345678', host: '10.8.0.1', port: 3306 };
const xyz: UserDatabase = { id: 5, name: 'u12_xyz', user: 'u12_xyz', password: 'AnderGeheim99', host: '10.8.0.1', port: 3306 };

function renderView(overrides: Partial<DatabasesPageViewProps> = {}) {
  const noop = () => undefined;
  const props: DatabasesPageViewProps = {
    databases: [],
    loadError: null,
    host: '10.8.0.1',
    port: 3306,
    adminUrl: '/phpmyadmin/',
    namePrefix: 'u12_',
    name: '',
    nameProblem: DATABASE_NAME_MESSAGES.empty,
    createErrors: [],
    creating: false,
    created: null,
    shownPasswords: new Set(),
    confirmingId: null,
    droppingId: null,
    dropError: null,
    onNameChange: noop,
    onCreate: noop,
    onTogglePassword: noop,
    onAskDrop: noop,
    onDrop: noop,
    ...overrides,
  };
  render(
    <MemoryRouter>
      <DatabasesPageView {...props} />
    </MemoryRouter>,
  );
  return props;
}

const createButton = () => screen.getByRole('button', { name: 'Aanmaken' }) as HTMLButtonElement;
const nameInput = () => screen.getByPlaceholderText('3 letters') as HTMLInputElement;

describe('DatabasesPageView', () => {
  it('tells the fixed host and port 3306 and says when there are no databases, Aanmaken disabled', () => {
    renderView();
    expect(screen.getByTestId('database-host').textContent).toBe('Host: 10.8.0.1, poort: 3306');
    expect(screen.getByText('Je hebt nog geen databases.')).toBeTruthy();
    expect(createButton().disabled).toBe(true);
    expect(nameInput().maxLength).toBe(3);
    expect(screen.queryByRole('img', { name: 'Naam is beschikbaar' })).toBeNull();
    expect(screen.getByRole('link', { name: 'VPN-verbinding' }).getAttribute('href')).toBe('/vpn');
  });

  it('tells the port it is given, and on one’s own computer (npm start) says so instead of the VPN', () => {
    renderView({ host: '127.0.0.1', port: 3307 });
    expect(screen.getByTestId('database-host').textContent).toBe('Host: 127.0.0.1, poort: 3307');
    expect(screen.getByText(/vast intern adres en poort 3307/)).toBeTruthy();
    expect(screen.getByText('Deze databaseserver draait op deze computer: je bereikt hem alleen hier.')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'VPN-verbinding' })).toBeNull();
  });

  it('shows the check mark and enables Aanmaken for an available name', () => {
    renderView({ name: 'ab', nameProblem: null });
    expect(screen.getByRole('img', { name: 'Naam is beschikbaar' }).textContent).toBe('✓');
    expect(createButton().disabled).toBe(false);
    expect(screen.getByText('u12_ab')).toBeTruthy();
  });

  it('keeps Aanmaken disabled and says why when the name exists', () => {
    renderView({ databases: [abc], name: 'abc', nameProblem: DATABASE_NAME_MESSAGES.taken });
    expect(createButton().disabled).toBe(true);
    expect(screen.queryByRole('img', { name: 'Naam is beschikbaar' })).toBeNull();
    expect(screen.getByText(DATABASE_NAME_MESSAGES.taken)).toBeTruthy();
  });

  it('passes what is typed on, and submits', () => {
    const onNameChange = vi.fn();
    const onCreate = vi.fn();
    renderView({ name: 'ab', nameProblem: null, onNameChange, onCreate });
    fireEvent.change(nameInput(), { target: { value: 'abC' } });
    expect(onNameChange).toHaveBeenCalledWith('abC');
    fireEvent.click(createButton());
    expect(onCreate).toHaveBeenCalledTimes(1);
  });

  it('lists name, user, a masked password (7 X) and the admin link', () => {
    const onTogglePassword = vi.fn();
    renderView({ databases: [abc, xyz], onTogglePassword });
    const items = screen.getAllByTestId('database-item');
    expect(items).toHaveLength(2);
    const first = within(items[0] as HTMLElement);
    expect(first.getByTestId('database-password').textContent).toBe(MASKED_PASSWORD);
    expect(MASKED_PASSWORD).toBe('XXXXXXX');
    expect(first.queryByText(abc.password)).toBeNull();
    expect(first.getByRole('link', { name: 'u12_abc beheren in phpMyAdmin' }).getAttribute('href')).toBe(
      '/phpmyadmin/?db=u12_abc&link=true',
    );
    fireEvent.click(first.getByRole('button', { name: 'Wachtwoord van u12_abc tonen' }));
    expect(onTogglePassword).toHaveBeenCalledWith(4);
  });

  it('shows the password when toggled', () => {
    renderView({ databases: [abc, xyz], shownPasswords: new Set([4]) });
    const [first, second] = screen.getAllByTestId('database-item') as HTMLElement[];
    expect(within(first as HTMLElement).getByTestId('database-password').textContent).toBe(abc.password);
    expect(within(first as HTMLElement).getByRole('button', { name: 'Wachtwoord van u12_abc verbergen' }).getAttribute('aria-pressed')).toBe('true');
    expect(within(second as HTMLElement).getByTestId('database-password').textContent).toBe(MASKED_PASSWORD);
  });

  it('asks Wil je "{name}" verwijderen? with Ja! and Nee!', () => {
    const onDrop = vi.fn();
    const onAskDrop = vi.fn();
    renderView({ databases: [abc], confirmingId: 4, onDrop, onAskDrop });
    expect(screen.getByText('Wil je "u12_abc" verwijderen?')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Nee!' }));
    expect(onAskDrop).toHaveBeenCalledWith(null);
    fireEvent.click(screen.getByRole('button', { name: 'Ja!' }));
    expect(onDrop).toHaveBeenCalledWith(4);
  });

  it('shows the errors for db as red headings above the form', () => {
    renderView({ createErrors: [DATABASE_NAME_MESSAGES.taken, 'Nog iets.'] });
    const box = screen.getByTestId('database-errors');
    expect(within(box).getAllByRole('heading').map((heading) => heading.textContent)).toEqual([DATABASE_NAME_MESSAGES.taken, 'Nog iets.']);
    expect(box.compareDocumentPosition(screen.getByRole('form', { name: 'Database aanmaken' })) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('shows a load failure instead of the list', () => {
    renderView({ databases: undefined, loadError: 'De databaseserver is op dit moment niet bereikbaar.' });
    expect(screen.getByRole('alert').textContent).toBe('De databaseserver is op dit moment niet bereikbaar.');
    expect(screen.queryByText('Je hebt nog geen databases.')).toBeNull();
  });
});
