/**
 * Turns Docker's log byte stream into lines. Without a TTY Docker multiplexes stdout and stderr
 * into frames (8-byte header: stream 1|2, three zero bytes, payload length big-endian); with a
 * TTY it is one raw stream (reported as stdout). With `timestamps: true` every line starts with
 * an RFC 3339 time and a space. Chunks may split frames, lines and UTF-8 characters anywhere:
 * bytes are kept until a line is complete, then decoded (invalid UTF-8 becomes U+FFFD).
 */

export type LogStreamName = 'stdout' | 'stderr';

/** One complete line of a container's output. */
export interface DecodedLogLine {
  stream: LogStreamName;
  /** Without the trailing newline (and carriage return). */
  text: string;
  /** When Docker received the line; undefined when the line carried no timestamp. */
  time: Date | undefined;
}

const HEADER_LENGTH = 8;
const timestampPattern = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d) ?/;

/** Splits Docker's leading timestamp off a line (nanoseconds cut to milliseconds). */
export function splitTimestamp(line: string): { time: Date | undefined; text: string } {
  const match = timestampPattern.exec(line);
  if (!match) return { time: undefined, text: line };
  const [whole, seconds, fraction = '', zone] = match;
  const time = new Date(`${seconds}${fraction.slice(0, 4)}${zone}`);
  return Number.isNaN(time.getTime()) ? { time: undefined, text: line } : { time, text: line.slice(whole.length) };
}

/** Incremental decoder: push chunks as they come, call end() when the stream ends. */
export class LogDecoder {
  private pending: Buffer = Buffer.alloc(0);
  private readonly partial: Record<LogStreamName, Buffer[]> = { stdout: [], stderr: [] };

  /** `multiplexed` is false for containers created with a TTY. */
  constructor(private readonly multiplexed: boolean) {}

  push(chunk: Buffer): DecodedLogLine[] {
    if (!this.multiplexed) return this.append('stdout', chunk);
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const lines: DecodedLogLine[] = [];
    while (this.pending.length >= HEADER_LENGTH) {
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < HEADER_LENGTH + size) break;
      const stream: LogStreamName = this.pending[0] === 2 ? 'stderr' : 'stdout';
      lines.push(...this.append(stream, this.pending.subarray(HEADER_LENGTH, HEADER_LENGTH + size)));
      this.pending = this.pending.subarray(HEADER_LENGTH + size);
    }
    return lines;
  }

  /** The last unterminated line of each stream, if any. */
  end(): DecodedLogLine[] {
    const lines: DecodedLogLine[] = [];
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.partial[stream].length) lines.push(toLine(stream, Buffer.concat(this.partial[stream])));
      this.partial[stream] = [];
    }
    return lines;
  }

  private append(stream: LogStreamName, bytes: Buffer): DecodedLogLine[] {
    const lines: DecodedLogLine[] = [];
    let rest = bytes;
    for (let newline = rest.indexOf(0x0a); newline >= 0; newline = rest.indexOf(0x0a)) {
      const line = Buffer.concat([...this.partial[stream], rest.subarray(0, newline)]);
      this.partial[stream] = [];
      lines.push(toLine(stream, line));
      rest = rest.subarray(newline + 1);
    }
    if (rest.length) this.partial[stream].push(Buffer.from(rest));
    return lines;
  }
}

function toLine(stream: LogStreamName, bytes: Buffer): DecodedLogLine {
  const { time, text } = splitTimestamp(bytes.toString('utf8').replace(/\r$/, ''));
  return { stream, text, time };
}

/** Decodes a complete log buffer (GetContainerLogs without follow). */
export function decodeLogs(buffer: Buffer, multiplexed: boolean): DecodedLogLine[] {
  const decoder = new LogDecoder(multiplexed);
  return [...decoder.push(buffer), ...decoder.end()];
}
