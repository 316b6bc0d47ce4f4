// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import type { AdminDockerImage } from '../../api/queries/adminDockers.ts';
import { NO_DEPLOY } from '@devplein/contract/validation/imageDeploy';
import { AdminDockerImagesPageView, type AdminDockerImagesPageViewProps } from './AdminDockerImagesPageView.tsx';

afterEach(cleanup);

const images: AdminDockerImage[] = [
  { id: 2, name: 'PHP 8.3', image: 'devplein/php:8.3', ssh: true, wordpress: false, capabilities: ['CHOWN', 'SETGID', 'SETUID'], deploy: { ...NO_DEPLOY, webRoot: '/var/www/html' }, projects: 12 },
  { id: 3, name: 'WordPress', image: 'devplein/wordpress:6', ssh: false, wordpress: true, capabilities: [], deploy: NO_DEPLOY, projects: 0 },
];

function renderView(overrides: Partial<AdminDockerImagesPageViewProps> = {}) {
  const props: AdminDockerImagesPageViewProps = {
    images,
    loadFailed: false,
    confirmingDelete: null,
    deletingId: null,
    message: null,
    onAskDelete: vi.fn(),
    onConfirmDelete: vi.fn(),
    form: { name: '', image: '', ssh: false, wordpress: false, capabilities: ['CHOWN'] },
    fieldErrors: {},
    formError: null,
    saving: false,
    onFormChange: vi.fn(),
    onSubmit: vi.fn(),
    editing: null,
    editErrors: [],
    savingEdit: false,
    onEdit: vi.fn(),
    onEditChange: vi.fn(),
    onSaveEdit: vi.fn(),
    deployEditing: null,
    deployErrors: {},
    savingDeploy: false,
    onEditDeploy: vi.fn(),
    onDeployChange: vi.fn(),
    onSaveDeploy: vi.fn(),
    ...overrides,
  };
  render(
    <MemoryRouter>
      <AdminDockerImagesPageView {...props} />
    </MemoryRouter>,
  );
  return props;
}

describe('AdminDockerImagesPageView', () => {
  it('lists name, image, ssh, wordpress, capabilities, the git deploy web root and the number of projects', () => {
    renderView();
    const rows = screen.getAllByTestId('docker-image-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getAllByRole('cell').map((cell) => cell.textContent)).toEqual([
      'PHP 8.3',
      'devplein/php:8.3',
      'Ja',
      'Nee',
      'CHOWNSETGIDSETUIDWijzigen',
      '/var/www/htmlWijzigen',
      '12',
      'Verwijder',
    ]);
    expect(within(rows[1]!).getAllByRole('cell')[4]?.textContent).toBe('geenWijzigen');
    expect(within(rows[1]!).getAllByRole('cell')[5]?.textContent).toBe('niet aangebodenWijzigen');
  });

  it('edits where git deploys put the code, with the 422 errors at their fields', () => {
    const props = renderView();
    fireEvent.click(screen.getByRole('button', { name: 'Git-deploy van WordPress wijzigen' }));
    expect(props.onEditDeploy).toHaveBeenCalledWith(images[1]);
    cleanup();
    const form = { webRoot: '/etc', afterUpdate: '', keepPaths: 'wp-content/uploads', buildCommand: '', buildOutput: '' };
    const editing = renderView({ deployEditing: { id: 3, form }, deployErrors: { 'deploy.webRoot': ['Geen systeemmap.'] } });
    const editor = screen.getByRole('form', { name: 'Git-deploy van WordPress' });
    const webRoot = within(editor).getByLabelText('Webroot in de container');
    expect(webRoot.getAttribute('aria-invalid')).toBe('true');
    expect(within(editor).getByText('Geen systeemmap.')).toBeTruthy();
    fireEvent.change(within(editor).getByLabelText('Bewaren bij bijwerken (één pad per regel)'), { target: { value: 'wp-content/uploads\n.env' } });
    expect(editing.onDeployChange).toHaveBeenCalledWith({ ...form, keepPaths: 'wp-content/uploads\n.env' });
    fireEvent.click(within(editor).getByRole('button', { name: 'Git-deploy opslaan' }));
    expect(editing.onSaveDeploy).toHaveBeenCalled();
    fireEvent.click(within(editor).getByRole('button', { name: 'Annuleren' }));
    expect(editing.onEditDeploy).toHaveBeenCalledWith(null);
  });

  it('edits the capabilities of one option with checkboxes and shows the 422 error there', () => {
    const props = renderView();
    fireEvent.click(screen.getByRole('button', { name: 'Rechten van PHP 8.3 wijzigen' }));
    expect(props.onEdit).toHaveBeenCalledWith(images[0]);
    cleanup();
    const editing = renderView({ editing: { id: 2, capabilities: ['CHOWN', 'SETUID'] }, editErrors: ['Onbekend recht.'] });
    const group = screen.getByRole('group', { name: 'Rechten (capabilities) van PHP 8.3' });
    expect(within(group).getByRole('checkbox', { name: /^CHOWN/ })).toHaveProperty('checked', true);
    expect(within(group).getByRole('checkbox', { name: /^SETGID/ })).toHaveProperty('checked', false);
    fireEvent.click(within(group).getByRole('checkbox', { name: /^KILL/ }));
    // Kept in allow-list order, whatever order they were clicked in.
    expect(editing.onEditChange).toHaveBeenCalledWith(['CHOWN', 'KILL', 'SETUID']);
    fireEvent.click(within(group).getByRole('checkbox', { name: /^CHOWN/ }));
    expect(editing.onEditChange).toHaveBeenCalledWith(['SETUID']);
    expect(within(group).getByText('Onbekend recht.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Rechten opslaan' }));
    expect(editing.onSaveEdit).toHaveBeenCalled();
  });

  it('asks before deleting and shows the 409 refusal', () => {
    const props = renderView({ message: { ok: false, text: 'Deze image wordt nog door 12 projecten gebruikt.' } });
    fireEvent.click(screen.getByRole('button', { name: 'Verwijder PHP 8.3' }));
    expect(props.onAskDelete).toHaveBeenCalledWith(2);
    expect(screen.getByRole('alert').textContent).toBe('Deze image wordt nog door 12 projecten gebruikt.');
    cleanup();
    const confirming = renderView({ confirmingDelete: 3 });
    fireEvent.click(screen.getByRole('button', { name: 'Ja, verwijder' }));
    expect(confirming.onConfirmDelete).toHaveBeenCalledWith(images[1]);
  });

  it('has the form with name, image, ssh and wordpress, and shows the 422 field errors', () => {
    const props = renderView({ fieldErrors: { image: ['Dit is geen geldige image-naam.'], name: ['Naam is verplicht.'] } });
    fireEvent.change(screen.getByLabelText('Image'), { target: { value: 'devplein/node:22' } });
    expect(props.onFormChange).toHaveBeenCalledWith({ name: '', image: 'devplein/node:22', ssh: false, wordpress: false, capabilities: ['CHOWN'] });
    fireEvent.click(screen.getByRole('checkbox', { name: 'SSH-toegang' }));
    expect(props.onFormChange).toHaveBeenCalledWith({ name: '', image: '', ssh: true, wordpress: false, capabilities: ['CHOWN'] });
    const capabilities = screen.getByRole('group', { name: 'Rechten (capabilities)' });
    fireEvent.click(within(capabilities).getByRole('checkbox', { name: /^NET_BIND_SERVICE/ }));
    expect(props.onFormChange).toHaveBeenCalledWith({ name: '', image: '', ssh: false, wordpress: false, capabilities: ['CHOWN', 'NET_BIND_SERVICE'] });
    expect(screen.getByText('Dit is geen geldige image-naam.')).toBeTruthy();
    expect(screen.getByLabelText('Naam').getAttribute('aria-invalid')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: 'Toevoegen' }));
    expect(props.onSubmit).toHaveBeenCalled();
  });
});
