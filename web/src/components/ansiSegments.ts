import Anser from 'anser';

/** One run of a log line with one look: React renders it as a <span>, so its text is always escaped. */
export interface LogSegment {
  text: string;
  /** Classes for the 16 named colours and the decorations (styles/dockers.css defines them). */
  className?: string;
  /** `rgb(…)` for the 256-colour palette and true colour, which have no class. */
  color?: string;
  background?: string;
}

const ESCAPE = '\u001b';
const DECORATIONS = new Set(['bold', 'dim', 'italic', 'underline', 'strikethrough', 'hidden']);

/** xterm's 256-colour palette above the 16 named colours: a 6×6×6 cube, then 24 greys. */
function paletteRgb(index: number): string | undefined {
  if (index >= 16 && index <= 231) {
    const level = (value: number) => (value === 0 ? 0 : 55 + value * 40);
    const n = index - 16;
    return `rgb(${level(Math.floor(n / 36))}, ${level(Math.floor(n / 6) % 6)}, ${level(n % 6)})`;
  }
  if (index >= 232 && index <= 255) {
    const grey = 8 + (index - 232) * 10;
    return `rgb(${grey}, ${grey}, ${grey})`;
  }
  return undefined;
}

const NAMED = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

/** Anser's colour (a class name like `ansi-red`, `ansi-palette-208` or `ansi-truecolor`) as a class or an rgb(). */
function colourOf(name: string | null, truecolor: string | null): { className?: string; rgb?: string } {
  if (name === null || name === '') return {};
  if (name === 'ansi-truecolor') return truecolor ? { rgb: `rgb(${truecolor})` } : {};
  const palette = /^ansi-palette-(\d+)$/.exec(name);
  if (palette !== null) {
    const index = Number(palette[1]);
    if (index < 8) return { className: `ansi-${NAMED[index]}` };
    if (index < 16) return { className: `ansi-bright-${NAMED[index - 8]}` };
    const rgb = paletteRgb(index);
    return rgb === undefined ? {} : { rgb };
  }
  return { className: name };
}

/**
 * A container's log line as coloured runs: ANSI colour and decoration codes (SGR) become classes
 * or colours, every other escape sequence (cursor moves, clearing) is dropped, and the text stays
 * text — nothing from the container is ever read as HTML. A line without an escape is one run.
 */
export function ansiSegments(line: string): LogSegment[] {
  if (!line.includes(ESCAPE)) return [{ text: line }];
  const segments: LogSegment[] = [];
  for (const entry of Anser.ansiToJson(line, { json: true, use_classes: true, remove_empty: true })) {
    if (entry.content === '') continue;
    const classes: string[] = [];
    const foreground = colourOf(entry.fg, entry.fg === 'ansi-truecolor' ? entry.fg_truecolor : null);
    const background = colourOf(entry.bg, entry.bg === 'ansi-truecolor' ? entry.bg_truecolor : null);
    if (foreground.className) classes.push(foreground.className);
    if (background.className) classes.push(`${background.className}-bg`);
    for (const decoration of entry.decorations) if (DECORATIONS.has(decoration)) classes.push(`ansi-${decoration}`);
    const segment: LogSegment = { text: entry.content };
    if (classes.length > 0) segment.className = classes.join(' ');
    if (foreground.rgb) segment.color = foreground.rgb;
    if (background.rgb) segment.background = background.rgb;
    segments.push(segment);
  }
  return segments;
}
