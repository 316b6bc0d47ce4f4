// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import type { UserDocker } from '../../api/queries/dockers.ts';
import { DockersPageView } from './DockersPageView.tsx';
import { userDocker } from './cardFixtures.ts';

afterEach(cleanup);

const docker = (id: number, name: string): UserDocker =>
  userDocker({
    Id: null,
    Names: [`/${name}`],
    Image: '',
    State: 'Nog niet goed gekeurd!',
    Status: 'Wacht op goedkeuring van een docent.',
    Labels: { projectId: id },
    project: { id, name, validated: null, docker_id: 2 },
    Users: [],
    description: '',
    domain: `${name}.dev.devplein.test`,
  });

function renderPage(dockers: UserDocker[] | undefined, loadError: string | null = null) {
  render(
    <MemoryRouter>
      <DockersPageView
        dockers={dockers}
        loadError={loadError}
        renderCard={(item) => (
          <li key={item.project.id} data-testid="card">
            {item.project.name}
          </li>
        )}
      />
    </MemoryRouter>,
  );
}

describe('DockersPageView', () => {
  it('has the heading, the request button and the subheading', () => {
    renderPage([]);
    expect(screen.getByRole('heading', { level: 1, name: 'Dockers' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Nieuwe docker aanvragen' }).getAttribute('href')).toBe('/dockers/create');
    expect(screen.getByRole('heading', { level: 2, name: 'Huidige dockers' })).toBeTruthy();
  });

  it('says so when there are no dockers', () => {
    renderPage([]);
    expect(screen.getByTestId('no-dockers').textContent).toBe('Je hebt nog geen dockers aangemaakt');
  });

  it('renders one card per docker', () => {
    renderPage([docker(2, 'webshop'), docker(1, 'blog')]);
    expect(screen.getAllByTestId('card').map((card) => card.textContent)).toEqual(['webshop', 'blog']);
    expect(screen.queryByTestId('no-dockers')).toBeNull();
  });

  it('shows the load failure and a loading line', () => {
    renderPage(undefined, 'De dockerserver is op dit moment niet bereikbaar. Probeer het zo opnieuw.');
    expect(screen.getByRole('alert').textContent).toMatch(/niet bereikbaar/);
    cleanup();
    renderPage(undefined);
    expect(screen.getByRole('status').textContent).toBe('Dockers laden…');
  });
});
