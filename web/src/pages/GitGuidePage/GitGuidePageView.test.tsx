// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { GitGuidePageView, type GitGuidePageViewProps } from './GitGuidePageView.tsx';
import { UsefulLinksPageView } from '../UsefulLinksPage/UsefulLinksPageView.tsx';

afterEach(cleanup);

function renderGuide(props: GitGuidePageViewProps) {
  render(
    <MemoryRouter>
      <GitGuidePageView {...props} />
    </MemoryRouter>,
  );
}

describe('GitGuidePageView', () => {
  it('explains the whole loop in Dutch, with the hosts the school allows', () => {
    renderGuide({ settings: { allowedHosts: ['git.school.nl', 'github.com'], allowHttp: false }, settingsFailed: false });
    expect(screen.getByRole('heading', { level: 1, name: 'Je site bijwerken met git' })).toBeTruthy();
    expect(within(screen.getByTestId('guide-hosts')).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['git.school.nl', 'github.com']);
    const headings = screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent);
    expect(headings).toEqual([
      '1. Je repository op het aanvraagformulier',
      '2. Bijwerken met één klik',
      '3. Automatisch na elke push: de webhook',
      '4. Een privé-repository',
      '5. Wat blijft er staan?',
      '6. Als bijwerken mislukt',
      '7. Terug naar een eerdere versie',
    ]);
    for (const server of ['Gitea of Forgejo', 'GitLab', 'GitHub']) expect(screen.getByText(server)).toBeTruthy();
    expect(screen.getAllByText('application/json').length).toBeGreaterThanOrEqual(2);
    expect(document.body.textContent).toContain('Voeg deze sleutel toe als deploy key met alleen-lezen rechten');
    expect(document.body.textContent).toContain('blijft je oude site gewoon online');
    expect(document.body.textContent).toContain('http://');
  });

  it('says when git deploy is off, and when the hosts could not be loaded', () => {
    renderGuide({ settings: { allowedHosts: [], allowHttp: false }, settingsFailed: false });
    expect(screen.getByTestId('guide-hosts').textContent).toMatch(/Git-deploy staat op dit moment uit/);
    cleanup();
    renderGuide({ settings: undefined, settingsFailed: true });
    expect(screen.getByText(/kon niet worden geladen/)).toBeTruthy();
  });

  it('is linked from Handige links', () => {
    render(
      <MemoryRouter>
        <UsefulLinksPageView links={{ internal: [], learning: [] }} />
      </MemoryRouter>,
    );
    expect(within(screen.getByTestId('links-guides')).getByRole('link', { name: 'Je site bijwerken met git' }).getAttribute('href')).toBe('/useful-links/git');
  });
});
