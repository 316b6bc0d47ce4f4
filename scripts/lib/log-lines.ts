import { createRequire } from 'node:module';
import type PinoPretty from 'pino-pretty';

// eslint-disable-next-line no-control-regex -- matching the escape character is the point
const ansi = /\x1b\[[0-9;]*m/g;

/** Removes terminal colour codes (for logs that are not a terminal). */
export function stripAnsi(text: string): string {
  return text.replace(ansi, '');
}

type Prettifier = (line: string) => string;

/**
 * Turns a pino JSON line into pino-pretty's human form; other lines come back unchanged.
 * Falls back to the raw line when pino-pretty is not installed.
 */
export function createLinePrettifier(options: { colorize: boolean }): Prettifier {
  let pretty: ((input: string) => string) | undefined;
  try {
    const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
    pretty = pinoPretty.prettyFactory({
      colorize: options.colorize,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,name',
      singleLine: false,
    });
  } catch {
    pretty = undefined;
  }
  return (line) => {
    if (!pretty || !line.startsWith('{')) return line;
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed !== 'object' || parsed === null || !('level' in parsed)) return line;
      return pretty(line).replace(/\n$/, '');
    } catch {
      return line;
    }
  };
}
