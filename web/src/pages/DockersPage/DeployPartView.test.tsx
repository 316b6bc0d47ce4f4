// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { DEPLOY_STATUSES, DEPLOY_STATUS_LABELS, type DeployStatus } from '@devplein/contract/deploys';
import { STATE_AWAITING, STATE_NOT_CREATED, STATE_REJECTED } from '../../api/queries/dockers.ts';
import { deployBlockedReason } from './DeployPart.tsx';
import { DeployDetailsView, type DeployDetailsViewProps } from './DeployDetailsView.tsx';
import { DeployPartView, type DeployPartViewProps } from './DeployPartView.tsx';
import { commitB, deployPanel, deploySummary, projectDeploy } from './cardFixtures.ts';

afterEach(cleanup);

const now = new Date('2026-11-27T21:00:00Z');

function renderPart(overrides: Partial<DeployPartViewProps> = {}) {
  const props: DeployPartViewProps = {
    deploy: deploySummary(),
    log: [],
    blockedReason: null,
    starting: false,
    error: null,
    now,
    onDeploy: vi.fn(),
    ...overrides,
  };
  render(
    <MemoryRouter>
      <DeployPartView {...props} />
    </MemoryRouter>,
  );
  return props;
}

const deployButton = () => screen.getByRole('button', { name: 'Bijwerken' }) as HTMLButtonElement;

describe('DeployPartView', () => {
  it('shows the commit online: short hash in a chip, subject, author and a Dutch relative time', () => {
    renderPart();
    const commit = screen.getByTestId('deploy-current-commit');
    expect(within(commit).getByText('3f9c2a1').tagName).toBe('CODE');
    expect(within(commit).getByText('3f9c2a1').getAttribute('title')).toBe('3f9c2a1d8e7b6c5a4f3e2d1c0b9a8f7e6d5c4b3a');
    expect(commit.textContent).toBe('3f9c2a1 Menu werkt nu ook op de telefoon Sam Student, 3 minuten geleden');
    expect(screen.getByText('https://git.school.nl/sam/webshop.git')).toBeTruthy();
    expect(screen.getByText('(standaardbranch)')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Hoe werkt dit?' }).getAttribute('href')).toBe('/useful-links/git');
  });

  it('asks for the token again when it was dropped, and warns about a renewed webhook secret (issue 35)', () => {
    renderPart({ deploy: deploySummary({ tokenMissing: true, webhookNotice: { reason: 'member-left', since: '2026-11-27T20:50:00Z' } }) });
    expect(screen.getByTestId('deploy-token-missing').textContent).toMatch(/^Vul het token opnieuw in\./);
    const notice = screen.getByTestId('deploy-webhook-notice').textContent ?? '';
    expect(notice).toContain('Iemand verliet het project (10 minuten geleden), daarom is het geheim vernieuwd.');
    expect(notice).toContain('tot dan weigert devplein elke push');
  });

  it('shows neither notice normally', () => {
    renderPart();
    expect(screen.queryByTestId('deploy-token-missing')).toBeNull();
    expect(screen.queryByTestId('deploy-webhook-notice')).toBeNull();
  });

  it('says so before the first deploy', () => {
    renderPart({ deploy: deploySummary({ current: null, latest: null }) });
    expect(screen.getByTestId('deploy-current-commit').textContent).toBe('nog geen versie uit git');
    expect(screen.getByTestId('deploy-status').textContent).toBe('Nog niet bijgewerkt');
    expect(deployButton().disabled).toBe(false);
  });

  it.each(DEPLOY_STATUSES.map((status) => [status, DEPLOY_STATUS_LABELS[status]] as [DeployStatus, string]))(
    'labels the newest deploy %s as %s',
    (status, label) => {
      renderPart({ deploy: deploySummary({ latest: projectDeploy({ id: 12, status, commit: commitB }) }) });
      expect(screen.getByTestId('deploy-status').textContent).toBe(label);
    },
  );

  it.each(['queued', 'running'] as const)('disables Bijwerken while the newest deploy is %s', (status) => {
    renderPart({ deploy: deploySummary({ latest: projectDeploy({ id: 12, status, commit: null }) }) });
    expect(deployButton().disabled).toBe(true);
  });

  it('asks for a deploy with Bijwerken, and disables it while the request is on its way', () => {
    const props = renderPart();
    fireEvent.click(deployButton());
    expect(props.onDeploy).toHaveBeenCalledTimes(1);
    cleanup();
    renderPart({ starting: true });
    expect((screen.getByRole('button', { name: 'Bezig…' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('disables Bijwerken with the reason for rejected, unapproved and not yet created projects', () => {
    const docker = (State: string, validated: boolean | null) => ({ State, project: { id: 7, name: 'webshop', validated, docker_id: 2 } });
    expect(deployBlockedReason(docker('running', true))).toBeNull();
    expect(deployBlockedReason(docker(STATE_REJECTED, false))).toBe('Dit project is afgekeurd: bijwerken kan niet.');
    expect(deployBlockedReason(docker(STATE_AWAITING, null))).toBe('Bijwerken kan pas als een docent je project heeft goedgekeurd.');
    expect(deployBlockedReason(docker(STATE_NOT_CREATED, true))).toMatch(/^Maak eerst de docker aan/);
    const reason = deployBlockedReason(docker(STATE_REJECTED, false));
    renderPart({ blockedReason: reason });
    expect(deployButton().disabled).toBe(true);
    expect(screen.getByText('Dit project is afgekeurd: bijwerken kan niet.')).toBeTruthy();
  });

  it('shows the log and the step while a deploy runs, with the progress of the last line', () => {
    renderPart({
      deploy: deploySummary({ latest: projectDeploy({ id: 12, status: 'running', commit: commitB }) }),
      log: [
        { phase: 'queue', text: 'Aan de beurt.', percent: null },
        { phase: 'fetch', text: 'Objecten ontvangen: 45% (90/200)', percent: 45 },
      ],
    });
    const lines = within(screen.getByTestId('deploy-log')).getAllByRole('listitem');
    expect(lines.map((line) => line.textContent)).toEqual(['Aan de beurt.', 'Objecten ontvangen: 45% (90/200)']);
    expect(screen.getByText('Bezig met bijwerken: code ophalen…')).toBeTruthy();
    expect((screen.getByLabelText('Voortgang bijwerken') as HTMLProgressElement).value).toBe(45);
    expect(screen.getByText(/Komt eraan:/).textContent).toContain('a1b2c3d');
  });

  it('shows why a deploy failed, that the old site stays, and its log', () => {
    renderPart({
      deploy: deploySummary({ latest: projectDeploy({ id: 12, status: 'failed', commit: commitB, message: 'De opdracht na het bijwerken is mislukt (afsluitcode 1). De oude site blijft staan.' }) }),
      log: [{ phase: 'after-update', text: 'composer: command not found', percent: null }],
    });
    expect(screen.getByTestId('deploy-failure').textContent).toBe(
      // The server's message says what happened to the site; nothing is added to it (it said so twice).
      'De opdracht na het bijwerken is mislukt (afsluitcode 1). De oude site blijft staan.',
    );
    expect(screen.getByTestId('deploy-log').textContent).toBe('composer: command not found');
    expect(screen.getByTestId('deploy-current-commit').textContent).toContain('3f9c2a1');
    expect(deployButton().disabled).toBe(false);
  });

  it('shows no log for a finished deploy that went well', () => {
    renderPart({ log: [{ phase: 'swap', text: 'Klaar.', percent: null }] });
    expect(screen.queryByTestId('deploy-log')).toBeNull();
  });
});

function renderDetails(overrides: Partial<DeployDetailsViewProps> = {}) {
  const props: DeployDetailsViewProps = {
    open: true,
    onToggle: vi.fn(),
    panel: deployPanel(),
    loadError: null,
    current: projectDeploy({ id: 11 }),
    deployBusy: false,
    now,
    savingSettings: false,
    settingsErrors: {},
    settingsSaved: false,
    renewingSecret: false,
    makingKey: false,
    actionError: null,
    onSaveSettings: vi.fn(),
    onNewSecret: vi.fn(),
    onMakeKey: vi.fn(),
    onRollBack: vi.fn(),
    ...overrides,
  };
  render(
    <MemoryRouter>
      <DeployDetailsView {...props} />
    </MemoryRouter>,
  );
  return props;
}

describe('DeployDetailsView', () => {
  it('is collapsed until opened', () => {
    const props = renderDetails({ open: false });
    const toggle = screen.getByRole('button', { name: /Git-deploy/ });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByTestId('deploy-details')).toBeNull();
    fireEvent.click(toggle);
    expect(props.onToggle).toHaveBeenCalled();
  });

  it('shows the webhook URL, hides the secret until Toon, and offers copy buttons', () => {
    renderDetails();
    expect(screen.getByTestId('webhook-url').textContent).toBe('https://devplein.school.nl/api/webhooks/deploy/7');
    expect(screen.getByTestId('webhook-secret').textContent).not.toContain('whsec_');
    fireEvent.click(screen.getByRole('button', { name: 'Toon' }));
    expect(screen.getByTestId('webhook-secret').textContent).toBe('whsec_6f1d0c9b2a8e4f7d');
    fireEvent.click(screen.getByRole('button', { name: 'Verberg' }));
    expect(screen.getByTestId('webhook-secret').textContent).not.toContain('whsec_');
    expect(screen.getByRole('button', { name: 'Webhook-URL kopiëren' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Webhookgeheim kopiëren' })).toBeTruthy();
  });

  it('copies to the clipboard and says so', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    renderDetails();
    fireEvent.click(screen.getByRole('button', { name: 'Webhookgeheim kopiëren' }));
    expect(await screen.findByRole('button', { name: 'Gekopieerd: Webhookgeheim kopiëren' })).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith('whsec_6f1d0c9b2a8e4f7d');
  });

  it('asks for a new secret', () => {
    const props = renderDetails();
    fireEvent.click(screen.getByRole('button', { name: 'Nieuw geheim' }));
    expect(props.onNewSecret).toHaveBeenCalled();
  });

  it("shows the deploy key with the issue's sentence word for word", () => {
    renderDetails();
    expect(screen.getByTestId('deploy-key-instruction').textContent).toBe('Voeg deze sleutel toe als deploy key met alleen-lezen rechten');
    expect(screen.getByTestId('deploy-key').textContent).toBe(deployPanel().deployKey?.publicKey);
    expect(screen.getByRole('button', { name: 'Publieke sleutel kopiëren' })).toBeTruthy();
    cleanup();
    renderDetails({ panel: deployPanel({ deployKey: null, deployKeyStatus: 'unknown' }) });
    expect(screen.getByTestId('deploy-key-missing').textContent).toMatch(/kon nu niet worden opgehaald/);
  });

  it('offers "Deploy key maken" when the project has no key yet, and makes it only on the click (issue 35)', () => {
    const props = renderDetails({ panel: deployPanel({ deployKey: null, deployKeyStatus: 'none' }) });
    expect(screen.getByTestId('deploy-key-none').textContent).toMatch(/nog geen deploy key/);
    expect(screen.queryByTestId('deploy-key')).toBeNull();
    expect(props.onMakeKey).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Deploy key maken' }));
    expect(props.onMakeKey).toHaveBeenCalledTimes(1);
    cleanup();
    renderDetails({ panel: deployPanel({ deployKey: null, deployKeyStatus: 'none' }), makingKey: true });
    expect((screen.getByRole('button', { name: 'Bezig…' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('lists the history newest first with "terug naar deze versie" only on earlier versions that were online', () => {
    const props = renderDetails();
    const items = screen.getAllByTestId('deploy-history-item');
    expect(items.map((item) => item.dataset.deploy)).toEqual(['13', '12', '11', '9', '8']);
    const offers = items.map((item) => within(item).queryByRole('button', { name: 'terug naar deze versie' }) !== null);
    // failed, superseded, online now, earlier version, failed
    expect(offers).toEqual([false, false, false, true, false]);
    expect(within(items[2]!).getByText('nu online')).toBeTruthy();
    expect(items[0]!.textContent).toContain('Mislukt');
    expect(items[0]!.textContent).toContain('na een push');
    expect(items[0]!.textContent).toContain('De opdracht na het bijwerken stopte met exitcode 1.');
    expect(items[3]!.textContent).toContain('met Bijwerken door Sam Student');
    fireEvent.click(within(items[3]!).getByRole('button', { name: 'terug naar deze versie' }));
    expect(props.onRollBack).toHaveBeenCalledWith(9);
  });

  it('offers no roll back while a deploy runs', () => {
    renderDetails({ deployBusy: true });
    expect(screen.queryByRole('button', { name: 'terug naar deze versie' })).toBeNull();
  });

  it('never shows a stored token, only that one is stored, and sends a new one only when typed', () => {
    const props = renderDetails({ panel: deployPanel({ auth: 'token', hasToken: true, branch: 'main' }) });
    const token = screen.getByLabelText('Token') as HTMLInputElement;
    expect(token.value).toBe('');
    expect(token.type).toBe('password');
    expect(screen.getByTestId('token-hint').textContent).toMatch(/^Er is een token opgeslagen/);

    expect((screen.getByLabelText('Branch (leeg: de standaardbranch)') as HTMLInputElement).value).toBe('main');
    fireEvent.click(screen.getByRole('button', { name: 'Opslaan' }));
    expect(props.onSaveSettings).toHaveBeenLastCalledWith({ branch: 'main', auth: 'token' });
    fireEvent.change(token, { target: { value: 'glpat-nieuw' } });
    fireEvent.click(screen.getByRole('button', { name: 'Opslaan' }));
    expect(props.onSaveSettings).toHaveBeenLastCalledWith({ branch: 'main', auth: 'token', token: 'glpat-nieuw' });
  });

  it('names who stored the token and when (issue 35)', () => {
    renderDetails({ panel: deployPanel({ auth: 'token', hasToken: true, token: { storedBy: { id: 4, name: 'Sam Student' }, storedAt: '2026-11-20T10:00:00Z' } }) });
    expect(screen.getByTestId('token-hint').textContent).toBe('Opgeslagen door Sam Student op 20 november 2026, alleen voor dit repository-adres. Vul alleen iets in om het te vervangen.');
  });

  it('switches to the deploy key, checks the branch name and shows the server’s field errors', () => {
    const props = renderDetails({ settingsErrors: { branch: ['Deze branch bestaat niet in de repository.'] } });
    expect(screen.getByText('Deze branch bestaat niet in de repository.')).toBeTruthy();
    fireEvent.click(screen.getByLabelText('Deploy key (ssh-adres, git@…)'));
    const branch = screen.getByLabelText('Branch (leeg: de standaardbranch)');
    fireEvent.change(branch, { target: { value: 'a..b' } });
    expect((screen.getByRole('button', { name: 'Opslaan' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(branch, { target: { value: 'develop' } });
    fireEvent.click(screen.getByRole('button', { name: 'Opslaan' }));
    expect(props.onSaveSettings).toHaveBeenLastCalledWith({ branch: 'develop', auth: 'deploy-key' });
    expect(screen.queryByLabelText('Token')).toBeNull();
  });
});
