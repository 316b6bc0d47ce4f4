// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import {
  EMPTY_FILTERS,
  adminActionsFor,
  filterAndSortAdminDockers,
  indexAdminDockers,
  type AdminDocker,
} from '../../api/queries/adminDockers.ts';
import { AdminDockersPageView, type AdminDockersPageViewProps, type RowResult } from './AdminDockersPageView.tsx';

afterEach(cleanup);

const container = (name: string, Status: string, user = 'Sam Student', Image = 'devplein/php:8.3'): AdminDocker => ({
  Id: `id-${name}`,
  Names: [`/${name}`],
  Image,
  State: Status.startsWith('Up') ? (Status.includes('Paused') ? 'paused' : 'running') : 'exited',
  Status,
  user,
  userId: user === 'NO OWNER' ? null : 4,
  projectId: user === 'NO OWNER' ? null : 7,
  managed: user !== 'NO OWNER',
  autoStop: null,
});

const dockers = [
  container('webshop', 'Up 3 minutes'),
  container('blog', 'Exited (0) 2 hours ago', 'Olga Ontwikkelaar', 'devplein/wordpress:6'),
  container('portfolio', 'Up 2 days (Paused)', 'Anna Admin'),
  container('oud-ding', 'Exited (137) 3 weeks ago', 'NO OWNER', 'nginx:1.25'),
];
const indexed = indexAdminDockers(dockers);

function renderView(overrides: Partial<AdminDockersPageViewProps> = {}) {
  const props: AdminDockersPageViewProps = {
    loading: false,
    loadError: null,
    onReload: vi.fn(),
    total: dockers.length,
    rows: filterAndSortAdminDockers(indexed, EMPTY_FILTERS, { column: 'name', direction: 'asc' }),
    showHost: false,
    filters: EMPTY_FILTERS,
    onFilterChange: vi.fn(),
    sort: { column: 'name', direction: 'asc' },
    onSort: vi.fn(),
    selected: new Set(),
    onToggleSelect: vi.fn(),
    onSelectAll: vi.fn(),
    busy: new Set(),
    results: new Map(),
    message: null,
    bulkBusy: false,
    onBulk: vi.fn(),
    onAction: vi.fn(),
    confirmingDelete: null,
    onAskDelete: vi.fn(),
    onConfirmDelete: vi.fn(),
    pickingOwner: null,
    onPickOwner: vi.fn(),
    onOwnerPicked: vi.fn(),
    screenshotBusy: new Set(),
    onScreenshot: vi.fn(),
    ...overrides,
  };
  render(
    <MemoryRouter>
      <AdminDockersPageView {...props} />
    </MemoryRouter>,
  );
  return props;
}

const row = (name: string) => screen.getAllByTestId('admin-docker-row').find((element) => element.dataset.docker === name)!;
const rowButtons = (name: string) =>
  within(row(name))
    .getAllByRole('button')
    .map((button) => button.textContent);

describe('adminActionsFor (spec §4 admin)', () => {
  it.each([
    ['Up 3 minutes', ['stop', 'pause', 'restart']],
    ['Up 2 days (Paused)', ['unpause']],
    ['Exited (0) 2 hours ago', ['start']],
    ['Restarting (1) 3 seconds ago', []],
  ])('%s → %j', (status, expected) => {
    expect(adminActionsFor(status)).toEqual(expected);
  });
});

describe('filterAndSortAdminDockers', () => {
  it('sorts by a column in both directions', () => {
    const names = (column: 'name' | 'user' | 'status', direction: 'asc' | 'desc') =>
      filterAndSortAdminDockers(indexed, EMPTY_FILTERS, { column, direction }).map((item) => item.name);
    expect(names('name', 'asc')).toEqual(['blog', 'oud-ding', 'portfolio', 'webshop']);
    expect(names('name', 'desc')).toEqual(['webshop', 'portfolio', 'oud-ding', 'blog']);
    expect(names('user', 'asc')).toEqual(['portfolio', 'oud-ding', 'blog', 'webshop']);
  });

  it('filters per column, case-insensitive, all filters together', () => {
    const names = (filters: Partial<typeof EMPTY_FILTERS>) =>
      filterAndSortAdminDockers(indexed, { ...EMPTY_FILTERS, ...filters }, { column: 'name', direction: 'asc' }).map((item) => item.name);
    expect(names({ status: 'exited' })).toEqual(['blog', 'oud-ding']);
    expect(names({ status: 'EXITED', image: 'nginx' })).toEqual(['oud-ding']);
    expect(names({ user: 'no owner' })).toEqual(['oud-ding']);
    expect(names({ name: 'zzz' })).toEqual([]);
  });

  it('handles 400 rows quickly', () => {
    const many = indexAdminDockers(Array.from({ length: 400 }, (_, index) => container(`project-${index}`, index % 2 ? 'Up 1 hour' : 'Exited (0) 1 day ago')));
    const started = performance.now();
    for (let round = 0; round < 20; round += 1) {
      filterAndSortAdminDockers(many, { ...EMPTY_FILTERS, status: 'up' }, { column: 'status', direction: round % 2 ? 'asc' : 'desc' });
    }
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('AdminDockersPageView', () => {
  it('has the sortable columns Naam, Gebruiker, Type, Status and Opties with a filter per column', () => {
    const props = renderView();
    const headers = screen.getAllByRole('columnheader').map((header) => header.textContent?.replace(/[▲▼↕]/g, ''));
    for (const label of ['Naam', 'Gebruiker', 'Type', 'Status', 'Opties']) expect(headers).toContain(label);
    fireEvent.click(screen.getByRole('button', { name: /^Gebruiker/ }));
    expect(props.onSort).toHaveBeenCalledWith('user');
    fireEvent.change(screen.getByRole('searchbox', { name: 'Filter op Type' }), { target: { value: 'nginx' } });
    expect(props.onFilterChange).toHaveBeenCalledWith('image', 'nginx');
    expect(screen.getAllByRole('columnheader').find((header) => header.textContent?.startsWith('Naam'))!.getAttribute('aria-sort')).toBe('ascending');
  });

  it('says which dev server each container is on only when there is more than one', () => {
    const onServers = indexAdminDockers(dockers.map((docker, index) => ({ ...docker, host: index === 0 ? 'dev2' : 'dev1' })));
    const rows = filterAndSortAdminDockers(onServers, EMPTY_FILTERS, { column: 'name', direction: 'asc' });
    renderView({ rows, showHost: true });
    expect(within(row('webshop')).getByTestId('docker-host').textContent).toBe('op dev2');
    expect(within(row('blog')).getByTestId('docker-host').textContent).toBe('op dev1');
    cleanup();
    renderView({ rows });
    expect(screen.queryAllByTestId('docker-host')).toEqual([]);
  });

  it('offers the actions of each status plus delete', () => {
    renderView();
    expect(rowButtons('webshop')).toEqual(['ververs screenshot', 'Stop', 'Pauze', 'Restart', 'Verwijder']);
    expect(rowButtons('blog')).toEqual(['ververs screenshot', 'Start', 'Verwijder']);
    expect(rowButtons('portfolio')).toEqual(['ververs screenshot', 'Herstart', 'Verwijder']);
  });

  it('calls the right action and asks before deleting', () => {
    const props = renderView();
    fireEvent.click(within(row('portfolio')).getByRole('button', { name: 'Herstart portfolio' }));
    expect(props.onAction).toHaveBeenCalledWith('portfolio', 'unpause');
    fireEvent.click(within(row('blog')).getByRole('button', { name: 'Verwijder blog' }));
    expect(props.onAskDelete).toHaveBeenCalledWith('blog');
    cleanup();
    const confirming = renderView({ confirmingDelete: 'blog' });
    fireEvent.click(within(row('blog')).getByRole('button', { name: 'Ja, verwijder' }));
    expect(confirming.onConfirmDelete).toHaveBeenCalledWith('blog');
  });

  it('makes NO OWNER a button that opens the user search', () => {
    const props = renderView();
    fireEvent.click(within(row('oud-ding')).getByRole('button', { name: 'Eigenaar kiezen voor oud-ding' }));
    expect(props.onPickOwner).toHaveBeenCalledWith('oud-ding');
    cleanup();
    renderView({ pickingOwner: 'oud-ding' });
    expect(within(row('oud-ding')).getByRole('searchbox', { name: 'Eigenaar voor oud-ding' })).toBeTruthy();
  });

  it('starts and stops the selected rows and shows each row its result', () => {
    const results = new Map<string, RowResult>([
      ['webshop', { ok: true, text: 'Gestart' }],
      ['oud-ding', { ok: false, text: 'De container bestaat niet meer.' }],
    ]);
    const props = renderView({
      selected: new Set(['webshop', 'oud-ding']),
      results,
      message: { ok: false, text: 'Starten: 1 gelukt, 1 mislukt (zie de rijen).' },
    });
    expect(screen.getByText('2 geselecteerd')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Start geselecteerde' }));
    expect(props.onBulk).toHaveBeenCalledWith('start');
    fireEvent.click(screen.getByRole('button', { name: 'Stop geselecteerde' }));
    expect(props.onBulk).toHaveBeenCalledWith('stop');
    expect(within(row('webshop')).getByTestId('row-result').textContent).toBe('Gestart');
    expect(within(row('oud-ding')).getByTestId('row-result').textContent).toBe('De container bestaat niet meer.');
    expect(screen.getByRole('alert').textContent).toBe('Starten: 1 gelukt, 1 mislukt (zie de rijen).');
    fireEvent.click(within(row('blog')).getByRole('checkbox', { name: 'blog selecteren' }));
    expect(props.onToggleSelect).toHaveBeenCalledWith('blog');
    fireEvent.click(screen.getByRole('checkbox', { name: 'Alle zichtbare dockers selecteren' }));
    expect(props.onSelectAll).toHaveBeenCalledWith(['blog', 'oud-ding', 'portfolio', 'webshop'], true);
  });

  it('disables the bulk buttons without a selection', () => {
    renderView();
    expect((screen.getByRole('button', { name: 'Start geselecteerde' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows per project when its site was last captured, why the last capture failed, and ververs screenshot', () => {
    const withShots: AdminDocker[] = [
      { ...container('webshop', 'Up 3 minutes'), projectId: 7, screenshot: { projectId: 7, capturedAt: '2026-11-24T02:05:00Z', lastAttemptAt: '2026-11-24T02:05:00Z', lastError: null, inFlight: false } },
      {
        ...container('blog', 'Up 1 minute'),
        projectId: 8,
        screenshot: { projectId: 8, capturedAt: null, lastAttemptAt: '2026-11-24T02:06:00Z', lastError: 'HTTP-fout 500 (the site answered 500)', inFlight: false },
      },
      { ...container('portfolio', 'Up 2 minutes'), projectId: 9, screenshot: { projectId: 9, capturedAt: null, lastAttemptAt: null, lastError: null, inFlight: true } },
      container('oud-ding', 'Exited (137) 3 weeks ago', 'NO OWNER'),
    ];
    const props = renderView({ rows: filterAndSortAdminDockers(indexAdminDockers(withShots), EMPTY_FILTERS, { column: 'name', direction: 'asc' }) });
    expect(screen.getAllByRole('columnheader').map((header) => header.textContent)).toContain('Screenshot');
    const cell = (name: string) => within(row(name)).getByTestId('screenshot-cell');
    expect(cell('webshop').textContent).toMatch(/^laatste screenshot: \d{2}-11-2026 \d{2}:\d{2}/);
    expect(cell('blog').textContent).toContain('nog geen screenshot');
    expect(within(row('blog')).getByTestId('screenshot-error').textContent).toBe('HTTP-fout 500 (the site answered 500)');
    expect(within(row('webshop')).queryByTestId('screenshot-error')).toBeNull();
    const busy = within(row('portfolio')).getByRole('button', { name: 'Screenshot van portfolio wordt gemaakt' }) as HTMLButtonElement;
    expect(busy.disabled).toBe(true);
    expect(busy.textContent).toBe('bezig…');
    expect(cell('oud-ding').textContent).toBe('geen project');
    fireEvent.click(within(row('webshop')).getByRole('button', { name: 'ververs screenshot van webshop' }));
    expect(props.onScreenshot).toHaveBeenCalledWith('webshop', 7);
  });

  it('shows the 503 notice and links to the image options', () => {
    const props = renderView({
      loadError: { text: 'De dockerserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.', unavailable: true },
    });
    expect(screen.getByRole('alert').textContent).toMatch(/De dockerserver is op dit moment niet bereikbaar/);
    fireEvent.click(screen.getByRole('button', { name: 'Opnieuw proberen' }));
    expect(props.onReload).toHaveBeenCalled();
    expect(screen.getByRole('link', { name: 'Image-opties beheren' }).getAttribute('href')).toBe('/admin/dockers/images');
  });

  it('shows the commit git deploy put online under the image, with author and time in its title (issue 23)', () => {
    const deployed: AdminDocker = {
      ...container('webshop', 'Up 3 minutes'),
      deployedCommit: { hash: '3f9c2a1d8e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a', shortHash: '3f9c2a1', subject: 'Menu werkt nu ook op de telefoon', author: 'Sam Student', time: '2026-11-27T20:57:00Z' },
    };
    const rows = indexAdminDockers([deployed, { ...container('blog', 'Exited (0) 2 hours ago'), deployedCommit: null }]);
    renderView({ rows, total: 2 });
    const row = screen.getAllByTestId('admin-docker-row').find((each) => each.dataset.docker === 'webshop');
    const commit = within(row!).getByTestId('deployed-commit');
    expect(commit.textContent).toBe('3f9c2a1 Menu werkt nu ook op de telefoon');
    expect(commit.getAttribute('title')).toMatch(/^Online uit git: 3f9c2a1d8e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a, Sam Student, 27-11-2026 \d{2}:57$/);
    const blog = screen.getAllByTestId('admin-docker-row').find((each) => each.dataset.docker === 'blog');
    expect(within(blog!).queryByTestId('deployed-commit')).toBeNull();
  });
});
