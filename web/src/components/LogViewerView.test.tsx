// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { LogViewerView, type LogViewerViewProps } from './LogViewerView.tsx';

afterEach(cleanup);

function baseProps(): LogViewerViewProps {
  return {
    name: 'webshop',
    lines: [],
    canLoadMore: false,
    loading: false,
    error: null,
    follow: 'off',
    downloadUrl: '/api/user/container/webshop?download=1',
    onToggleFollow: vi.fn(),
    onLoadMore: vi.fn(),
    onRefresh: vi.fn(),
    onClose: vi.fn(),
  };
}

function renderViewer(overrides: Partial<LogViewerViewProps> = {}) {
  const props: LogViewerViewProps = {
    name: 'webshop',
    lines: [
      { stream: 'stdout', text: 'GET / 200', time: '2026-11-22T08:00:00Z' },
      { stream: 'stderr', text: 'PHP Warning: undefined variable', time: '2026-11-22T08:00:01Z' },
    ],
    canLoadMore: false,
    loading: false,
    error: null,
    follow: 'off',
    downloadUrl: '/api/user/container/webshop?download=1',
    onToggleFollow: vi.fn(),
    onLoadMore: vi.fn(),
    onRefresh: vi.fn(),
    onClose: vi.fn(),
    ...overrides,
  };
  render(<LogViewerView {...props} />);
  return props;
}

describe('LogViewerView', () => {
  it('marks stderr lines and shows the stderr hint', () => {
    renderViewer();
    const dialog = screen.getByRole('dialog', { name: 'Logs van webshop' });
    const lines = dialog.querySelectorAll('.log-line');
    expect(lines).toHaveLength(2);
    expect(lines[1]!.getAttribute('data-stream')).toBe('stderr');
    expect(lines[1]!.className).toContain('log-stderr');
    expect(lines[0]!.className).not.toContain('log-stderr');
    expect(screen.getByText(/Zie je geen logs\? Zet dan/).textContent).toBe(
      'Zie je geen logs? Zet dan LOG_CHANNEL=stderr in het .env-bestand van je project.',
    );
  });

  it('has Live volgen, a download link, Meer laden and closes on Escape', () => {
    const props = renderViewer({ canLoadMore: true });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Live volgen' }));
    expect(props.onToggleFollow).toHaveBeenCalled();
    expect(screen.getByRole('link', { name: 'Downloaden' }).getAttribute('href')).toBe('/api/user/container/webshop?download=1');
    fireEvent.click(screen.getByRole('button', { name: 'Meer laden' }));
    expect(props.onLoadMore).toHaveBeenCalled();
    fireEvent.keyDown(window, { key: 'Escape' });
    expect(props.onClose).toHaveBeenCalled();
  });

  it('renders ANSI colours as spans and the container\'s markup as text', () => {
    renderViewer({ lines: [{ stream: 'stdout', text: '\u001b[31mFOUT\u001b[0m <img src=x onerror=alert(1)>', time: '' }] });
    const line = screen.getByTestId('log-viewer').querySelector('.log-line')!;
    expect(line.textContent).toBe('FOUT <img src=x onerror=alert(1)>');
    expect(line.querySelector('span.ansi-red')?.textContent).toBe('FOUT');
    expect(line.querySelector('img')).toBeNull();
  });

  it('keeps the DOM of shown lines when lines are appended', () => {
    const first = { stream: 'stdout' as const, text: 'een', time: '', key: 1 };
    const second = { stream: 'stdout' as const, text: 'twee', time: '', key: 2 };
    const { rerender } = render(<LogViewerView {...baseProps()} lines={[first]} />);
    const before = screen.getByText('een');
    rerender(<LogViewerView {...baseProps()} lines={[first, second]} />);
    expect(screen.getByText('een')).toBe(before);
    const kept = screen.getByText('twee');
    // The oldest line drops out (the cap): the remaining line keeps its element.
    rerender(<LogViewerView {...baseProps()} lines={[second]} />);
    expect(screen.queryByText('een')).toBeNull();
    expect(screen.getByText('twee')).toBe(kept);
  });

  it('says when there are no lines yet', () => {
    renderViewer({ lines: [] });
    expect(screen.getByText('Nog geen logregels.')).toBeTruthy();
  });
});
