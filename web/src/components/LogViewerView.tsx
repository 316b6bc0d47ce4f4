import { memo, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { createPortal } from 'react-dom';
import type { LogLine } from '../api/queries/dockers.ts';
import { ansiSegments } from './ansiSegments.ts';
import '../styles/dockers.css';

/** A line as the viewer keeps it: `key` stays the same while the line is shown, so an append renders only the new lines. */
export type KeyedLogLine = LogLine & { key?: number };

export type FollowState = 'off' | 'connecting' | 'on' | 'ended' | 'failed';

export interface LogViewerViewProps {
  name: string;
  /** The lines to render (already capped by the caller). */
  lines: readonly KeyedLogLine[];
  /** Older lines that exist but are not rendered or not loaded. */
  canLoadMore: boolean;
  loading: boolean;
  error: string | null;
  follow: FollowState;
  downloadUrl: string;
  onToggleFollow: () => void;
  onLoadMore: () => void;
  onRefresh: () => void;
  onClose: () => void;
}

const FOLLOW_TEXT: Record<FollowState, string> = {
  off: '',
  connecting: 'Verbinden…',
  on: 'Nieuwe regels verschijnen vanzelf.',
  ended: 'Live volgen is gestopt: de docker draait niet meer of de verbinding viel weg.',
  failed: 'Live volgen lukte niet. Probeer het nog eens.',
};

/**
 * One log line: ANSI colours as spans (React escapes the text; no HTML from the container), long
 * lines wrap. Memoised on the line object, so appending to a long log does not re-render the rest.
 */
const LogLineRow = memo(function LogLineRow({ line }: { line: LogLine }) {
  const segments = useMemo(() => ansiSegments(line.text), [line.text]);
  const only = segments.length === 1 ? segments[0] : undefined;
  const plain = only !== undefined && only.className === undefined && only.color === undefined && only.background === undefined;
  return (
    <li className={line.stream === 'stderr' ? 'log-line log-stderr' : 'log-line'} title={line.time === '' ? undefined : line.time} data-stream={line.stream}>
      {line.stream === 'stderr' && <span className="log-stream">stderr</span>}
      {plain
        ? only.text
        : segments.map((segment, index) => (
            <span
              key={index}
              className={segment.className}
              style={segment.color !== undefined || segment.background !== undefined ? { color: segment.color, backgroundColor: segment.background } : undefined}
            >
              {segment.text}
            </span>
          ))}
    </li>
  );
});

/**
 * The logs of one container in a dialog: stderr lines marked red, the stderr hint of spec §8,
 * live follow, download, and a button for older lines. Renders only what it is given, so a
 * long log never freezes the page.
 */
export function LogViewerView(props: LogViewerViewProps) {
  const { name, lines, canLoadMore, loading, error, follow, downloadUrl, onToggleFollow, onLoadMore, onRefresh, onClose } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const stickToBottom = useRef(true);

  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });
  useEffect(() => {
    closeButton.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // New lines keep the view at the bottom unless the reader scrolled up to read.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element !== null && stickToBottom.current) element.scrollTop = element.scrollHeight;
  }, [lines]);

  const headingId = `logs-${name}-heading`;
  const following = follow === 'on' || follow === 'connecting';
  // In a portal: the dialog opens from a card inside a list, where a <div> may not stand.
  return createPortal(
    <div className="log-backdrop" onClick={(event) => event.target === event.currentTarget && onClose()}>
      <section className="card log-dialog" role="dialog" aria-modal="true" aria-labelledby={headingId} data-testid="log-viewer">
        <header className="log-header">
          <h2 id={headingId}>Logs van {name}</h2>
          <button ref={closeButton} type="button" className="button button-secondary button-small" onClick={onClose}>
            Sluiten
          </button>
        </header>
        <div className="log-toolbar">
          <label className="checkbox-field log-follow">
            <input type="checkbox" checked={following} onChange={onToggleFollow} />
            Live volgen
          </label>
          <button type="button" className="button button-secondary button-small" onClick={onRefresh} disabled={loading}>
            Vernieuwen
          </button>
          <a className="button button-secondary button-small" href={downloadUrl} download={`${name}.log`}>
            Downloaden
          </a>
        </div>
        {follow !== 'off' && (
          <p className={follow === 'failed' ? 'log-follow-state error-text' : 'log-follow-state muted'} role="status">
            {FOLLOW_TEXT[follow]}
          </p>
        )}
        {error !== null && (
          <p className="docker-alert" role="alert">
            {error}
          </p>
        )}
        <div
          ref={scroller}
          className="log-output"
          tabIndex={0}
          aria-label={`Logregels van ${name}`}
          onScroll={(event) => {
            const element = event.currentTarget;
            stickToBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
          }}
        >
          {canLoadMore && (
            <button type="button" className="button button-secondary button-small log-more" onClick={onLoadMore} disabled={loading}>
              Meer laden
            </button>
          )}
          {loading && lines.length === 0 ? (
            <p className="log-empty">Logs laden…</p>
          ) : lines.length === 0 ? (
            <p className="log-empty">Nog geen logregels.</p>
          ) : (
            <ol className="log-lines">
              {lines.map((line, index) => (
                <LogLineRow key={line.key ?? index} line={line} />
              ))}
            </ol>
          )}
        </div>
        <p className="log-hint">
          Zie je geen logs? Zet dan <code>LOG_CHANNEL=stderr</code> in het <code>.env</code>-bestand van je project.
        </p>
      </section>
    </div>,
    document.body,
  );
}
