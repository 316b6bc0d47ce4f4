// @vitest-environment jsdom
/*
 * The dockers page with a git-deploy card and a fake realtime client (issue 23): live DeployLog
 * lines are appended to the log, and DeployUpdated changes the card's status and commit without
 * the list being asked for again.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { SWRConfig } from 'swr';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEPLOY_LOG_EVENT, DEPLOY_UPDATED_EVENT, type DeployLogEvent, type DeployUpdatedEvent } from '@devplein/contract/deploys';
import { STATE_NOT_CREATED } from '../../api/queries/dockers.ts';
import { commitB, deploySummary, projectDeploy, userDocker } from './cardFixtures.ts';
import { DockersPage } from './DockersPage.tsx';

type Listener = (data: unknown) => void;

/** A pusher-js stand-in: channels by name whose listeners the test calls. */
const realtime = vi.hoisted(() => {
  const channels = new Map<string, Map<string, Set<(data: unknown) => void>>>();
  const channelOf = (name: string) => {
    let events = channels.get(name);
    if (events === undefined) channels.set(name, (events = new Map()));
    return events;
  };
  const client = {
    connection: { state: 'connected', bind: () => {}, unbind: () => {} },
    subscribe: (name: string) => ({
      bind: (event: string, listener: (data: unknown) => void) => {
        const events = channelOf(name);
        if (!events.has(event)) events.set(event, new Set());
        events.get(event)?.add(listener);
      },
      unbind: (event: string, listener: (data: unknown) => void) => channelOf(name).get(event)?.delete(listener),
    }),
    unsubscribe: () => {},
  };
  return { client, channels };
});

vi.mock('../../realtime/client.ts', () => ({ sharedRealtimeClient: () => realtime.client }));

function emit(channel: string, event: string, data: DeployLogEvent | DeployUpdatedEvent | Record<string, unknown>) {
  const listeners: Listener[] = [...(realtime.channels.get(channel)?.get(event) ?? [])];
  expect(listeners.length).toBeGreaterThan(0);
  act(() => listeners.forEach((listener) => listener(data)));
}

const webshop = userDocker({ State: 'exited', Status: 'Exited (0) 2 hours ago', deploy: deploySummary() });

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

let requests: string[];
/** What POST …/deploys answers (the queued deploy unless a test says otherwise). */
let deployAnswer: unknown;

beforeEach(() => {
  document.head.innerHTML = '<meta name="csrf-token" content="t">';
  realtime.channels.clear();
  requests = [];
  deployAnswer = projectDeploy({ id: 12, status: 'queued', trigger: 'button', commit: null });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      const method = init?.method ?? 'GET';
      requests.push(`${method} ${url}`);
      if (method === 'GET' && url === '/api/user/dockers') return json([webshop]);
      if (method === 'GET' && url === '/api/user/dockers/7/deploys/12') {
        return json({ ...projectDeploy({ id: 12, status: 'running', commit: commitB }), log: [{ phase: 'queue', text: 'Aan de beurt.', percent: null }] });
      }
      if (method === 'POST' && url === '/api/user/dockers/7/deploys') return json(deployAnswer, 202);
      return json({ message: 'niet in deze test' }, 404);
    }),
  );
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function renderPage() {
  render(
    <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0, revalidateOnFocus: false }}>
      <MemoryRouter>
        <DockersPage />
      </MemoryRouter>
    </SWRConfig>,
  );
}

const listRequests = () => requests.filter((request) => request === 'GET /api/user/dockers').length;

describe('the dockers card, live git deploys', () => {
  it('appends live log lines and changes the commit on DeployUpdated, without reloading the list', async () => {
    renderPage();
    const commit = await screen.findByTestId('deploy-current-commit');
    expect(commit.textContent).toContain('3f9c2a1');
    const listed = listRequests();

    // A push started a deploy: the card shows it running and fetches its log so far.
    emit('private-container.webshop', DEPLOY_UPDATED_EVENT, { deploy: projectDeploy({ id: 12, status: 'running', commit: commitB }) });
    expect(screen.getByTestId('deploy-status').textContent).toBe('Bezig met bijwerken');
    expect((screen.getByRole('button', { name: 'Bijwerken' }) as HTMLButtonElement).disabled).toBe(true);
    await waitFor(() => expect(screen.getByTestId('deploy-log').textContent).toBe('Aan de beurt.'));

    emit('private-container.webshop', DEPLOY_LOG_EVENT, { deployId: 12, lines: [{ phase: 'fetch', text: 'Objecten ontvangen: 100% (200/200)', percent: 100 }] });
    emit('private-container.webshop', DEPLOY_LOG_EVENT, { deployId: 12, lines: [{ phase: 'swap', text: 'Nieuwe versie staat klaar.', percent: null }] });
    const lines = within(screen.getByTestId('deploy-log')).getAllByRole('listitem').map((line) => line.textContent);
    expect(lines).toEqual(['Aan de beurt.', 'Objecten ontvangen: 100% (200/200)', 'Nieuwe versie staat klaar.']);
    // Lines of another (older) deploy are not this log's.
    emit('private-container.webshop', DEPLOY_LOG_EVENT, { deployId: 11, lines: [{ phase: 'fetch', text: 'oud', percent: null }] });
    expect(screen.getByTestId('deploy-log').textContent).not.toContain('oud');

    emit('private-container.webshop', DEPLOY_UPDATED_EVENT, { deploy: projectDeploy({ id: 12, status: 'deployed', commit: commitB }) });
    expect(screen.getByTestId('deploy-current-commit').textContent).toContain('a1b2c3d');
    expect(screen.getByTestId('deploy-current-commit').textContent).toContain('Nieuwe fietsen op de voorpagina');
    expect(screen.getByTestId('deploy-status').textContent).toBe('Bijgewerkt');
    expect(screen.queryByTestId('deploy-log')).toBeNull();
    expect((screen.getByRole('button', { name: 'Bijwerken' }) as HTMLButtonElement).disabled).toBe(false);
    expect(listRequests()).toBe(listed);
  });

  it('Bijwerken asks for a deploy and shows it queued', async () => {
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'Bijwerken' }));
    await waitFor(() => expect(screen.getByTestId('deploy-status').textContent).toBe('In de wachtrij'));
    expect(requests).toContain('POST /api/user/dockers/7/deploys');
    expect((screen.getByRole('button', { name: 'Bijwerken' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('Bijwerken answered with only the deploy id (the queue took it at once) leaves the card to the live update', async () => {
    deployAnswer = { id: 12 };
    renderPage();
    await screen.findByTestId('deploy-current-commit');
    const before = screen.getByTestId('deploy-status').textContent;
    fireEvent.click(screen.getByRole('button', { name: 'Bijwerken' }));
    await waitFor(() => expect(requests).toContain('POST /api/user/dockers/7/deploys'));
    await waitFor(() => expect((screen.getByRole('button', { name: 'Bijwerken' }) as HTMLButtonElement).disabled).toBe(false));
    expect(screen.getByTestId('deploy-status').textContent).toBe(before);
    expect(screen.getByTestId('deploy-current-commit').textContent).toContain('3f9c2a1');

    emit('private-container.webshop', DEPLOY_UPDATED_EVENT, { deploy: projectDeploy({ id: 12, status: 'running', commit: commitB }) });
    expect(screen.getByTestId('deploy-status').textContent).toBe('Bezig met bijwerken');
  });

  it('drops malformed live payloads instead of breaking the card', async () => {
    renderPage();
    await screen.findByTestId('deploy-current-commit');
    emit('private-container.webshop', DEPLOY_UPDATED_EVENT, { deploy: { status: 'deployed' } });
    emit('private-container.webshop', DEPLOY_LOG_EVENT, { deployId: '12', lines: 'x' });
    expect(screen.getByTestId('deploy-current-commit').textContent).toContain('3f9c2a1');
    expect(screen.getByTestId('deploy-status').textContent).toBe('Bijgewerkt');
  });
});

/** A promise the test resolves when it chooses: an answer that is still on its way. */
function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Lets the page's fetch answer `method url` only once the test releases it. */
function holdAnswer(method: string, url: string) {
  const answer = deferred<Response>();
  const asked = deferred<void>();
  const original = vi.mocked(fetch).getMockImplementation();
  vi.mocked(fetch).mockImplementation(async (input, init) => {
    if ((init?.method ?? 'GET') === method && String(input) === url) {
      requests.push(`${method} ${String(input)}`);
      asked.resolve();
      return answer.promise;
    }
    return original ? original(input, init) : json({}, 404);
  });
  return { asked: asked.promise, release: (response: Response) => answer.resolve(response) };
}

// An answer leaves the server before the deploy it names moves on; the live event of that move
// can reach the page first (a deploy without a deploy key fails within milliseconds). The card
// must not go back to the older state: it would show 'Bezig met bijwerken' for good.
describe('the dockers card, an answer older than a live event', () => {
  it('keeps Mislukt when Bijwerken’s answer (queued) arrives after the live failure', async () => {
    const held = holdAnswer('POST', '/api/user/dockers/7/deploys');
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'Bijwerken' }));
    await held.asked;
    emit('private-container.webshop', DEPLOY_UPDATED_EVENT, { deploy: projectDeploy({ id: 12, status: 'failed', commit: null, message: 'Geen deploy key.' }) });
    expect(screen.getByTestId('deploy-status').textContent).toBe('Mislukt');
    held.release(json(projectDeploy({ id: 12, status: 'queued', trigger: 'button', commit: null }), 202));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Bijwerken' }).textContent).toBe('Bijwerken'));
    expect(screen.getByTestId('deploy-status').textContent).toBe('Mislukt');
  });

  it('keeps Mislukt when Aanmaken’s answer (first deploy running) arrives after the live failure', async () => {
    const notCreated = userDocker({ Image: '', State: STATE_NOT_CREATED, Status: '', deploy: deploySummary({ current: null, latest: null }) });
    const listed = vi.mocked(fetch).getMockImplementation();
    vi.mocked(fetch).mockImplementation(async (input, init) =>
      (init?.method ?? 'GET') === 'GET' && String(input) === '/api/user/dockers' ? json([notCreated]) : listed ? listed(input, init) : json({}, 404),
    );
    const held = holdAnswer('POST', '/api/user/dockers');
    renderPage();
    fireEvent.click(await screen.findByRole('button', { name: 'Aanmaken' }));
    await held.asked;
    const first = projectDeploy({ id: 12, status: 'running', trigger: 'create', commit: null, finishedAt: null });
    emit('private-container.webshop', DEPLOY_UPDATED_EVENT, { deploy: { ...first, status: 'failed', message: 'Geen deploy key.' } });
    held.release(json([{ ...notCreated, State: 'running', Status: 'Up Less than a second', deploy: deploySummary({ current: null, latest: first }) }]));
    await waitFor(() => expect(screen.getByTestId('docker-state').textContent).toBe('Draait'));
    expect(screen.getByTestId('deploy-status').textContent).toBe('Mislukt');
  });
});
