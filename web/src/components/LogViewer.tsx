import { useCallback, useEffect, useRef, useState } from 'react';
import {
  LOG_TAIL_DEFAULT,
  LOG_TAIL_MAX,
  containerLogsDownloadUrl,
  containerLogsFollowUrl,
  failureMessage,
  fetchContainerLogs,
  parseLogEvent,
  type LogLine,
} from '../api/queries/dockers.ts';
import { LogViewerView, type FollowState, type KeyedLogLine } from './LogViewerView.tsx';

/** At most this many lines are in the page at once; 'Meer laden' adds a step. */
export const LOG_RENDER_STEP = 1000;

/** Live volgen keeps at most this many lines in memory (the oldest go first). */
export const LOG_KEEP_MAX = 10_000;

let nextLineKey = 0;

/** Gives each line a key of its own, so React keeps a shown line's DOM when lines are added or dropped. */
function keyed(lines: readonly LogLine[]): KeyedLogLine[] {
  return lines.map((line) => ({ ...line, key: nextLineKey++ }));
}

/**
 * Loads a container's last lines (GET /api/user/container/{name}?format=json) and, while 'Live
 * volgen' is on, appends the lines of the follow stream (EventSource). Keeps at most LOG_KEEP_MAX
 * lines in memory and renders at most `shown` of them.
 */
export function LogViewer({ name, onClose }: { name: string; onClose: () => void }) {
  const [lines, setLines] = useState<KeyedLogLine[]>([]);
  const [tail, setTail] = useState(LOG_TAIL_DEFAULT);
  const [shown, setShown] = useState(LOG_RENDER_STEP);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [follow, setFollow] = useState<FollowState>('off');
  const [reload, setReload] = useState(0);
  // The server may have more than we asked for when it filled the whole tail.
  const [serverHasMore, setServerHasMore] = useState(false);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    fetchContainerLogs(name, tail, controller.signal).then(
      (loaded) => {
        setLines(keyed(loaded));
        setServerHasMore(loaded.length >= tail && tail < LOG_TAIL_MAX);
        setLoading(false);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        setError(failureMessage(failure, 'De logs konden niet worden geladen. Probeer het nog eens.'));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [name, tail, reload]);

  const pending = useRef<LogLine[]>([]);
  // 'connecting' → 'on' must not reconnect: the effect depends on whether following, not on the step.
  const following = follow === 'connecting' || follow === 'on';
  useEffect(() => {
    if (!following) return;
    const source = new EventSource(containerLogsFollowUrl(name), { withCredentials: true });
    // Lines arrive in bursts: add them to the list at most every 150 ms.
    const flush = window.setInterval(() => {
      if (pending.current.length === 0) return;
      const batch = keyed(pending.current);
      pending.current = [];
      setLines((current) => {
        const next = current.concat(batch);
        return next.length > LOG_KEEP_MAX ? next.slice(next.length - LOG_KEEP_MAX) : next;
      });
    }, 150);
    source.onopen = () => setFollow('on');
    source.onmessage = (event: MessageEvent<string>) => {
      const line = parseLogEvent(event.data);
      if (line !== null) pending.current.push(line);
    };
    source.onerror = (event: Event) => {
      // The server closes the stream when the container stops; do not let EventSource retry forever.
      source.close();
      // A named 'error' event carries the server's Dutch reason (e.g. the dockerserver is unreachable).
      const reason = event instanceof MessageEvent && typeof event.data === 'string' ? readMessage(event.data) : null;
      if (reason !== null) setError(reason);
      setFollow((current) => (current === 'connecting' || reason !== null ? 'failed' : 'ended'));
    };
    return () => {
      source.close();
      window.clearInterval(flush);
      const rest = pending.current;
      pending.current = [];
      if (rest.length > 0) setLines((current) => current.concat(keyed(rest)).slice(-LOG_KEEP_MAX));
    };
  }, [name, following]);

  const toggleFollow = useCallback(() => {
    setFollow((current) => (current === 'on' || current === 'connecting' ? 'off' : 'connecting'));
  }, []);

  const loadMore = useCallback(() => {
    if (lines.length > shown) setShown((current) => current + LOG_RENDER_STEP);
    else if (serverHasMore) {
      setShown((current) => current + LOG_RENDER_STEP);
      setTail((current) => Math.min(LOG_TAIL_MAX, Math.max(current * 2, shown + LOG_RENDER_STEP)));
    }
  }, [lines.length, shown, serverHasMore]);

  return (
    <LogViewerView
      name={name}
      lines={lines.length > shown ? lines.slice(lines.length - shown) : lines}
      canLoadMore={lines.length > shown || serverHasMore}
      loading={loading}
      error={error}
      follow={follow}
      downloadUrl={containerLogsDownloadUrl(name)}
      onToggleFollow={toggleFollow}
      onLoadMore={loadMore}
      onRefresh={() => setReload((current) => current + 1)}
      onClose={onClose}
    />
  );
}

function readMessage(data: string): string | null {
  try {
    const value = JSON.parse(data) as { message?: unknown };
    return typeof value.message === 'string' ? value.message : null;
  } catch {
    return null;
  }
}
