// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import type { LevelDetail } from '../../api/queries/levels.ts';
import { LevelPageView } from './LevelPageView.tsx';

afterEach(cleanup);

const level: LevelDetail = {
  id: 42,
  number: 1,
  status: 'success',
  category: { id: 1, title: 'Front-end' },
  content: { title: 'HTML: de basis' },
  courses: [
    {
      id: 1,
      title: 'Je eerste webpagina',
      texts: [
        { title: 'Wat is HTML?', text: 'HTML is **structuur**.\n\n<img src="x" onerror="alert(1)">\n\n<script>alert(1)</script>' },
        { title: 'Links', text: '[gevaarlijk](javascript:alert(1)) en [MDN](https://developer.mozilla.org)' },
      ],
      files: [{ id: 7, title: 'Startbestanden', type: 'ZIP' }],
    },
    { id: 2, title: 'Semantische elementen', texts: [{ title: 'header', text: 'Gebruik `<header>`.' }], files: [] },
  ],
};

function renderView(detail: LevelDetail | undefined, state: { notFound?: boolean; failed?: boolean } = {}) {
  render(
    <MemoryRouter>
      <LevelPageView level={detail} loading={false} notFound={state.notFound ?? false} failed={state.failed ?? false} />
    </MemoryRouter>,
  );
}

describe('LevelPageView', () => {
  it('heads the page with the level id and the course titles', () => {
    renderView(level);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Level 42: Je eerste webpagina, Semantische elementen');
  });

  it('shows the green banner only for a finished level', () => {
    renderView(level);
    expect(screen.getByTestId('level-achieved').textContent).toBe('Level behaald');
    cleanup();
    renderView({ ...level, status: 'open' });
    expect(screen.queryByTestId('level-achieved')).toBeNull();
  });

  it('has a Terug link to /levels at the top and the bottom', () => {
    renderView(level);
    const back = screen.getAllByRole('link', { name: 'Terug' });
    expect(back).toHaveLength(2);
    expect(back.every((link) => link.getAttribute('href') === '/levels')).toBe(true);
  });

  it('has a panel per text and a Bestanden panel only for courses with files', () => {
    renderView(level);
    const summaries = [...document.querySelectorAll('summary')].map((summary) => summary.textContent);
    expect(summaries).toEqual(['Wat is HTML?', 'Links', 'Bestanden', 'header']);
    const download = screen.getByRole('link', { name: 'Startbestanden' });
    expect(download.getAttribute('href')).toBe('/api/level/files/7');
    expect(screen.getByText('ZIP')).toBeTruthy();
  });

  it('renders Markdown without raw HTML or script links', async () => {
    renderView(level);
    expect((await screen.findByText('structuur')).tagName).toBe('STRONG');
    await screen.findByRole('link', { name: 'MDN' });
    expect(document.querySelector('.markdown img')).toBeNull();
    expect(document.querySelector('.markdown script')).toBeNull();
    const links = [...document.querySelectorAll('.markdown a')];
    expect(links.some((link) => (link.getAttribute('href') ?? '').startsWith('javascript:'))).toBe(false);
    const mdn = screen.getByRole('link', { name: 'MDN' });
    expect(mdn.getAttribute('target')).toBe('_blank');
    expect(mdn.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('says when a level does not exist', () => {
    renderView(undefined, { notFound: true });
    expect(screen.getByTestId('level-not-found').textContent).toContain('Dit level bestaat niet');
  });
});
