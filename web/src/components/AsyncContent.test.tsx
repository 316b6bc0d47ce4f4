// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { AsyncContent } from './AsyncContent.tsx';

afterEach(cleanup);

const texts = { errorText: 'De teams konden niet worden geladen.', loadingText: 'Teams laden…', empty: 'Er zijn nog geen teams.' };

function show(data: string[] | undefined, failed = false, loading = false) {
  return render(
    <AsyncContent data={data} failed={failed} loading={loading} {...texts} emptyTestId="none">
      {(items) => <ul aria-label="lijst">{items.map((item) => <li key={item}>{item}</li>)}</ul>}
    </AsyncContent>,
  );
}

describe('AsyncContent', () => {
  it('shows the failure first, as an alert in a card', () => {
    show(['a'], true, true);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe(texts.errorText);
    expect(alert.className).toBe('card error-text');
  });

  it('shows the loading text while data is missing or reloading', () => {
    show(undefined);
    expect(screen.getByRole('status').textContent).toBe(texts.loadingText);
    cleanup();
    show(['a'], false, true);
    expect(screen.getByRole('status').className).toBe('page-message');
  });

  it('shows the empty text for an empty list, and the content otherwise', () => {
    show([]);
    expect(screen.getByTestId('none').textContent).toBe(texts.empty);
    expect(screen.getByTestId('none').className).toBe('card page-message');
    cleanup();
    show(['a', 'b']);
    expect(screen.getByRole('list', { name: 'lijst' }).children).toHaveLength(2);
  });

  it('has no empty state without an empty text, and takes its own emptiness rule', () => {
    render(
      <AsyncContent data={[] as string[]} failed={false} errorText="x" loadingText="y">
        {() => <p>inhoud</p>}
      </AsyncContent>,
    );
    expect(screen.getByText('inhoud')).toBeTruthy();
    cleanup();
    render(
      <AsyncContent data={{ rows: [] as number[] }} failed={false} errorText="x" loadingText="y" empty="leeg" isEmpty={(data) => data.rows.length === 0}>
        {() => <p>inhoud</p>}
      </AsyncContent>,
    );
    expect(screen.getByText('leeg')).toBeTruthy();
  });
});
