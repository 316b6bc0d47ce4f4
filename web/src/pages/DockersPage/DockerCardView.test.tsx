// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { userDocker } from './cardFixtures.ts';
import { DockerCardView, type DockerCardViewProps } from './DockerCardView.tsx';

afterEach(cleanup);

function renderCard(overrides: Partial<DockerCardViewProps> = {}) {
  const props: DockerCardViewProps = {
    docker: userDocker(),
    busy: false,
    pull: null,
    error: null,
    password: null,
    confirmingDelete: false,
    onAction: vi.fn(),
    onCancelDelete: vi.fn(),
    onConfirmDelete: vi.fn(),
    onShowLogs: vi.fn(),
    onResetPassword: vi.fn(),
    onDismissPassword: vi.fn(),
    ...overrides,
  };
  render(
    <MemoryRouter>
      <ul>
        <DockerCardView {...props} />
      </ul>
    </MemoryRouter>,
  );
  return props;
}

const buttonNames = () =>
  within(screen.getByTestId('docker-card'))
    .queryAllByRole('button')
    .map((button) => button.textContent);

describe('DockerCardView', () => {
  it('shows the name without the slash, the domain link in a new tab, image, members, description, State and Status', () => {
    renderCard();
    const card = screen.getByTestId('docker-card');
    expect(within(card).getByRole('heading', { name: 'webshop' })).toBeTruthy();
    const link = within(card).getByRole('link', { name: 'webshop.dev.devplein.test' });
    expect(link.getAttribute('href')).toBe('http://webshop.dev.devplein.test');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(within(card).getByText('127.0.0.1:5000/devplein/php:8.3')).toBeTruthy();
    expect(within(card).getByText('Sam Student, Olga Ontwikkelaar')).toBeTruthy();
    expect(within(card).getByText(/tweedehands fietsen/)).toBeTruthy();
    expect(card.dataset.state).toBe('running');
    expect(within(card).getByTestId('docker-state').textContent).toBe('Draait');
    expect(within(card).getByTestId('docker-status').textContent).toBe('Draait al 3 minuten');
  });

  it.each([
    ['exited', ['Starten', 'Verwijderen', 'Logs']],
    ['running', ['Stoppen', 'Pauzeren', 'Herstarten', 'Logs']],
    ['paused', ['Hervatten', 'Logs']],
    ['Nog niet gecreëerd', ['Aanmaken', 'Verwijderen']],
    ['Nog niet goed gekeurd!', ['Verwijderen']],
    ['Afgekeurd', ['Verwijderen']],
    ['onbereikbaar', []],
  ])('in state %s offers exactly %j', (State, expected) => {
    renderCard({ docker: userDocker({ State, Status: 'x' }) });
    expect(buttonNames()).toEqual(expected);
  });

  it('maps the buttons to the container actions', () => {
    const props = renderCard();
    fireEvent.click(screen.getByRole('button', { name: 'Pauzeren' }));
    expect(props.onAction).toHaveBeenCalledWith('pause');
    fireEvent.click(screen.getByRole('button', { name: 'Logs' }));
    expect(props.onShowLogs).toHaveBeenCalled();
  });

  it('explains in Dutch that the dockerserver cannot be reached', () => {
    renderCard({ docker: userDocker({ State: 'onbereikbaar', Status: '' }) });
    expect(screen.getByRole('status').textContent).toMatch(/dockerserver is op dit moment niet bereikbaar/);
  });

  it('says why the dockerserver stopped the container, only while it is stopped', () => {
    const autoStop = { reason: 'idle' as const, stoppedAt: '2026-11-24T03:15:00Z', lastActivityAt: '2026-11-17T01:00:00Z', idleAfterSeconds: 7 * 86_400 };
    renderCard({ docker: userDocker({ State: 'exited', Status: 'Exited (143) 2 hours ago', autoStop }) });
    const notice = screen.getByTestId('docker-auto-stop');
    expect(notice.textContent).toMatch(/^Automatisch gestopt op 24 november 2026 om \d{2}:15 omdat je site 7 dagen geen bezoekers had\./);
    expect(notice.textContent).toContain('start hem opnieuw met Starten');
    expect(buttonNames()).toContain('Starten');
    cleanup();
    // A live 'running' arrives before the list is reloaded: the old reason is not shown.
    renderCard({ docker: userDocker({ State: 'running', autoStop }) });
    expect(screen.queryByTestId('docker-auto-stop')).toBeNull();
    cleanup();
    renderCard({ docker: userDocker({ State: 'exited' }) });
    expect(screen.queryByTestId('docker-auto-stop')).toBeNull();
  });

  it('says in Dutch that an exited container was stopped because its memory was full, only after an OOM kill', () => {
    renderCard({ docker: userDocker({ State: 'exited', Status: 'Exited (137) 3 minutes ago', exit: { oomKilled: true, exitCode: 137 } }) });
    expect(screen.getByTestId('docker-exited-oom').textContent).toBe(
      'Je container is gestopt omdat het geheugen vol was. Kijk in de logs wat zoveel geheugen gebruikte, en start hem daarna opnieuw.',
    );
    cleanup();
    // Killed by hand (docker kill, a stop that timed out): 137 too, but not for memory.
    renderCard({ docker: userDocker({ State: 'exited', Status: 'Exited (137) 3 minutes ago', exit: { oomKilled: false, exitCode: 137 } }) });
    expect(screen.queryByTestId('docker-exited-oom')).toBeNull();
    cleanup();
    // Started again: a live 'running' before the list is reloaded says nothing of the old exit.
    renderCard({ docker: userDocker({ State: 'running', exit: { oomKilled: true, exitCode: 137 } }) });
    expect(screen.queryByTestId('docker-exited-oom')).toBeNull();
  });

  it('pulses and disables the actions while busy', () => {
    renderCard({ busy: true });
    const card = screen.getByTestId('docker-card');
    expect(card.className).toContain('docker-busy');
    expect((screen.getByRole('button', { name: 'Stoppen' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows the pull progress and a server error on the card', () => {
    renderCard({
      docker: userDocker({ State: 'Nog niet gecreëerd' }),
      pull: { status: 'Laag 3 van 7 downloaden… 45 %', fraction: 0.5 },
      error: 'Image 127.0.0.1:5000/devplein/php:8.3 bestaat niet.',
    });
    expect(screen.getByText('Laag 3 van 7 downloaden… 45 %')).toBeTruthy();
    expect((screen.getByLabelText('Voortgang image ophalen') as HTMLProgressElement).value).toBe(0.5);
    expect(screen.getByRole('alert').textContent).toBe('Image 127.0.0.1:5000/devplein/php:8.3 bestaat niet.');
  });

  it('asks before deleting', () => {
    const props = renderCard({ docker: userDocker({ State: 'exited' }), confirmingDelete: true });
    const group = screen.getByRole('group', { name: 'Verwijderen van webshop bevestigen' });
    expect(within(group).getByText(/Wil je/)).toBeTruthy();
    fireEvent.click(within(group).getByRole('button', { name: 'Ja, verwijderen' }));
    expect(props.onConfirmDelete).toHaveBeenCalled();
    fireEvent.click(within(group).getByRole('button', { name: 'Nee' }));
    expect(props.onCancelDelete).toHaveBeenCalled();
  });

  it('shows the SSH command on ssh cards', () => {
    renderCard({ docker: userDocker({ ssh: true, sshCommand: 'ssh student@dev.devplein.test -p 22001' }) });
    expect(screen.getByTestId('docker-ssh-command').textContent).toBe('ssh student@dev.devplein.test -p 22001');
    expect(screen.getByText(/Inloggen met SSH/)).toBeTruthy();
  });

  it('offers a new WordPress password on running WordPress cards and shows it once', () => {
    const props = renderCard({ docker: userDocker({ wordpress: true }), password: { username: 'admin', password: 'Zr8-fjeQ-91' } });
    fireEvent.click(screen.getByRole('button', { name: 'Nieuw WordPress-wachtwoord' }));
    expect(props.onResetPassword).toHaveBeenCalled();
    expect(screen.getByTestId('wordpress-password').textContent).toBe('Zr8-fjeQ-91');
    fireEvent.click(screen.getByRole('button', { name: 'Verbergen' }));
    expect(props.onDismissPassword).toHaveBeenCalled();
  });

  it('has no WordPress button on other cards', () => {
    renderCard();
    expect(screen.queryByRole('button', { name: 'Nieuw WordPress-wachtwoord' })).toBeNull();
  });
});
