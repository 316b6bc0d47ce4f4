// @vitest-environment jsdom
import { Component, Suspense, type ReactNode } from 'react';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyPage } from './lazyPage.ts';

afterEach(cleanup);

function countedLoader(load: () => Promise<{ ThePage: () => React.JSX.Element }>) {
  const counter = { loads: 0 };
  const loader = () => {
    counter.loads += 1;
    return load();
  };
  return { counter, loader };
}

describe('lazyPage', () => {
  it('fetches the code once: preload starts it, rendering uses the same load', async () => {
    const { counter, loader } = countedLoader(() => Promise.resolve({ ThePage: () => <h1>De pagina</h1> }));
    const Page = lazyPage(loader, 'ThePage');
    Page.preload();
    Page.preload();
    render(
      <Suspense fallback={<p>Pagina laden…</p>}>
        <Page />
      </Suspense>,
    );
    expect(await screen.findByRole('heading', { name: 'De pagina' })).toBeTruthy();
    expect(counter.loads).toBe(1);
  });

  it('leaves a failed preload to the page: no unhandled rejection, the error boundary of the page gets the error', async () => {
    // The tab was reloaded just now, so no second reload: the failure goes to the error boundary.
    window.sessionStorage.setItem('devplein:stale-chunk-reload', String(Date.now()));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { counter, loader } = countedLoader(() => Promise.reject(new Error('chunk weg')));
      const Page = lazyPage(loader, 'ThePage');
      Page.preload();
      await new Promise((resolve) => setTimeout(resolve, 0));
      render(
        <ShowError>
          <Suspense fallback={<p>Pagina laden…</p>}>
            <Page />
          </Suspense>
        </ShowError>,
      );
      expect((await screen.findByRole('alert')).textContent).toBe('chunk weg');
      expect(counter.loads).toBe(1);
    } finally {
      window.sessionStorage.clear();
      vi.restoreAllMocks();
    }
  });
});

class ShowError extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    return this.state.error === null ? this.props.children : <p role="alert">{this.state.error.message}</p>;
  }
}
