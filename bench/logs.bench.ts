/**
 * The log viewer with a long followed log (issue 22: "the follow view keeps 10,000 lines smooth").
 * Renders web/src/components/LogViewerView with React 19 in jsdom 29 and measures:
 * 1. the first render of 1,000 and of 10,000 lines (a third of them with ANSI colours);
 * 2. appending: 50 batches of 20 new lines (what 'Live volgen' adds per 150 ms flush) to a view
 *    of 10,000 lines, the oldest dropped (the LOG_KEEP_MAX cap), per batch: median and worst;
 * 3. the same appends with every line keyed by its position (the viewer before issue 22): the floor
 *    this change is measured against, in the same run.
 * jsdom does no layout or paint, so these are React + DOM figures; Chromium's layout of lines out
 * of view is skipped by `content-visibility: auto` (styles/dockers.css). Not part of npm test.
 * Run with NODE_ENV=production for React's production build (as the browser gets it).
 */
import { register } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { FunctionComponent } from 'react';

/** The web package's pieces, typed here: the root tsconfig compiles no JSX and has no jsdom types. */
interface BenchLine {
  stream: 'stdout' | 'stderr';
  text: string;
  time: string;
  key?: number;
}
interface ViewerProps {
  name: string;
  lines: readonly BenchLine[];
  canLoadMore: boolean;
  loading: boolean;
  error: string | null;
  follow: 'off' | 'connecting' | 'on' | 'ended' | 'failed';
  downloadUrl: string;
  onToggleFollow: () => void;
  onLoadMore: () => void;
  onRefresh: () => void;
  onClose: () => void;
}
type JsdomModule = { JSDOM: new (html: string, options: { pretendToBeVisual: boolean }) => { window: Window } };
const JSDOM_MODULE = 'jsdom';
const VIEWER_MODULE = '../web/src/components/LogViewerView.tsx';
const { JSDOM } = (await import(JSDOM_MODULE)) as JsdomModule;

// The component imports its stylesheet; Node has no loader for .css: give it an empty module.
register(
  'data:text/javascript,' +
    encodeURIComponent(
      'export async function load(url, context, next) { if (url.endsWith(".css")) return { format: "module", source: "", shortCircuit: true }; return next(url, context); }',
    ),
);

const dom = new JSDOM('<!doctype html><html><body></body></html>', { pretendToBeVisual: true });
const globals = globalThis as unknown as Record<string, unknown>;
for (const key of ['window', 'document', 'navigator', 'HTMLElement', 'Node', 'Element', 'Text', 'Event', 'KeyboardEvent', 'MutationObserver', 'getComputedStyle', 'requestAnimationFrame', 'cancelAnimationFrame']) {
  if (!(key in globals) || key === 'navigator') Object.defineProperty(globals, key, { value: (dom.window as unknown as Record<string, unknown>)[key], configurable: true, writable: true });
}
globals.IS_REACT_ACT_ENVIRONMENT = false;

const React = await import('react');
// tsx compiles the component's JSX with the classic runtime (the root tsconfig): it looks for a global React.
globals.React = React;
const { createRoot } = await import('react-dom/client');
const { flushSync } = await import('react-dom');
const { LogViewerView } = (await import(VIEWER_MODULE)) as { LogViewerView: FunctionComponent<ViewerProps> };
type Props = ViewerProps;
type Line = BenchLine;

let counter = 0;
function line(): Line {
  const n = counter++;
  const text =
    n % 3 === 0
      ? `\u001b[90m[2026-11-27 12:00:${String(n % 60).padStart(2, '0')}]\u001b[0m \u001b[32mGET\u001b[0m /index.php?page=${n} \u001b[1m200\u001b[0m ${n % 97} ms`
      : `[2026-11-27 12:00:${String(n % 60).padStart(2, '0')}] worker ${n % 8} handled request ${n} for /api/items/${n} in ${n % 97} ms`;
  return { stream: n % 11 === 0 ? 'stderr' : 'stdout', text, time: '2026-11-27T12:00:00Z', key: n };
}

const noop = (): void => undefined;
function props(lines: readonly Line[]): Props {
  return { name: 'bench', lines, canLoadMore: false, loading: false, error: null, follow: 'on', downloadUrl: '/x', onToggleFollow: noop, onLoadMore: noop, onRefresh: noop, onClose: noop };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const ms = (value: number): string => `${value.toFixed(1)} ms`;

function firstRender(count: number): number {
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  const lines = Array.from({ length: count }, line);
  const started = performance.now();
  flushSync(() => root.render(React.createElement(LogViewerView, props(lines))));
  const took = performance.now() - started;
  root.unmount();
  container.remove();
  return took;
}

function appends(keyedByPosition: boolean): { median: number; worst: number; domLines: number } {
  const container = document.createElement('div');
  document.body.append(container);
  const root = createRoot(container);
  const strip = (lines: Line[]): Line[] => (keyedByPosition ? lines.map(({ key: _key, ...rest }) => rest) : lines);
  let lines = Array.from({ length: 10_000 }, line);
  flushSync(() => root.render(React.createElement(LogViewerView, props(strip(lines)))));
  const times: number[] = [];
  for (let batch = 0; batch < 50; batch++) {
    lines = lines.concat(Array.from({ length: 20 }, line)).slice(-10_000);
    const shown = strip(lines);
    const started = performance.now();
    flushSync(() => root.render(React.createElement(LogViewerView, props(shown))));
    times.push(performance.now() - started);
  }
  const domLines = document.querySelectorAll('.log-line').length;
  root.unmount();
  container.remove();
  return { median: median(times), worst: Math.max(...times), domLines };
}

// Warm up the JIT and React once.
firstRender(500);

const render1k = [firstRender(1_000), firstRender(1_000), firstRender(1_000)];
const render10k = [firstRender(10_000), firstRender(10_000), firstRender(10_000)];
console.log(`first render, 1,000 lines:  median of 3 ${ms(median(render1k))}`);
console.log(`first render, 10,000 lines: median of 3 ${ms(median(render10k))}`);

const keyed = appends(false);
const byPosition = appends(true);
console.log(`append 20 lines to 10,000 (oldest dropped), stable keys + memo rows (now): median ${ms(keyed.median)}, worst ${ms(keyed.worst)} of 50; ${keyed.domLines} lines in the DOM`);
console.log(`the same, lines keyed by position (before, floor):                   median ${ms(byPosition.median)}, worst ${ms(byPosition.worst)} of 50`);
console.log(`ratio now / before: ${(keyed.median / byPosition.median).toFixed(2)}×`);
