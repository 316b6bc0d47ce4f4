// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it } from 'vitest';
import type { LevelCategory } from '../../api/queries/levels.ts';
import { LevelsPageView } from './LevelsPageView.tsx';

afterEach(cleanup);

const category: LevelCategory = {
  id: 1,
  title: 'Front-end',
  number: 4,
  shownNumber: 4,
  icons: true,
  levels: [
    { id: 11, number: 1, title: 'Je eerste webpagina', status: 'success', content: { title: 'HTML' } },
    { id: 12, number: 2, title: 'Selectors en kleuren', status: 'open', content: { title: 'CSS' } },
    { id: 13, number: 3, title: 'Layouts bouwen', status: 'locked', content: { title: 'Flexbox' } },
    { id: null, number: 4, title: '-', status: 'locked', content: null },
  ],
};

function renderView(categories: LevelCategory[] | undefined, state: { loading?: boolean; failed?: boolean } = {}) {
  render(
    <MemoryRouter>
      <LevelsPageView categories={categories} loading={state.loading ?? false} failed={state.failed ?? false} />
    </MemoryRouter>,
  );
}

describe('LevelsPageView', () => {
  it('shows each category with numbered tiles and the first course title', () => {
    renderView([category]);
    const section = screen.getByRole('region', { name: 'Front-end' });
    const tiles = within(section).getAllByTestId('level-tile');
    expect(tiles.map((tile) => tile.querySelector('.level-tile-number')?.textContent)).toEqual(['1', '2', '3', '4']);
    expect(tiles[0]!.querySelector('.level-tile-title')?.textContent).toBe('Je eerste webpagina');
    expect(tiles[3]!.querySelector('.level-tile-title')?.textContent).toBe('-');
    expect(within(section).getByText('1 van 4 behaald')).toBeTruthy();
  });

  it('links success and open tiles to their level; locked tiles and placeholders are not links', () => {
    renderView([category]);
    const tiles = screen.getAllByTestId('level-tile');
    expect(tiles.map((tile) => tile.getAttribute('href'))).toEqual(['/level/11', '/level/12', null, null]);
    expect(tiles.map((tile) => tile.dataset.status)).toEqual(['success', 'open', 'locked', 'locked']);
  });

  it('puts an overlay with an icon on locked and success tiles, none on an open tile', () => {
    renderView([category]);
    const tiles = screen.getAllByTestId('level-tile');
    expect(tiles.map((tile) => tile.querySelector('.level-tile-overlay svg') !== null)).toEqual([true, false, true, true]);
  });

  it('says when loading, failing or empty', () => {
    renderView(undefined, { loading: true });
    expect(screen.getByRole('status').textContent).toBe('Levels laden…');
    cleanup();
    renderView(undefined, { failed: true });
    expect(screen.getByRole('alert').textContent).toContain('konden niet worden geladen');
    cleanup();
    renderView([]);
    expect(screen.getByText(/Er zijn nog geen levels/)).toBeTruthy();
  });
});
