import { describe, expect, it } from 'vitest';
import { LogDecoder, decodeLogs, splitTimestamp } from './log-decoder.ts';

function frame(stream: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe('splitTimestamp', () => {
  it("splits Docker's RFC 3339 nano timestamp off a line", () => {
    const { time, text } = splitTimestamp('2026-11-22T08:06:46.123456789Z hello world');
    expect(time?.toISOString()).toBe('2026-11-22T08:06:46.123Z');
    expect(text).toBe('hello world');
  });

  it('leaves a line without a timestamp alone', () => {
    expect(splitTimestamp('no time here')).toEqual({ time: undefined, text: 'no time here' });
  });
});

describe('LogDecoder', () => {
  it('demultiplexes stdout and stderr frames into lines, oldest first', () => {
    const buffer = Buffer.concat([
      frame(1, '2026-11-22T08:00:00.000000001Z out one\n'),
      frame(2, '2026-11-22T08:00:01.5Z err one\n'),
      frame(1, '2026-11-22T08:00:02Z out two\r\n'),
    ]);
    expect(decodeLogs(buffer, true)).toEqual([
      { stream: 'stdout', text: 'out one', time: new Date('2026-11-22T08:00:00.000Z') },
      { stream: 'stderr', text: 'err one', time: new Date('2026-11-22T08:00:01.500Z') },
      { stream: 'stdout', text: 'out two', time: new Date('2026-11-22T08:00:02.000Z') },
    ]);
  });

  it('copes with chunks that split headers, lines and UTF-8 characters', () => {
    const buffer = Buffer.concat([frame(1, '2026-11-22T08:00:00Z café ☕\n'), frame(2, '2026-11-22T08:00:00Z half'), frame(2, ' line\n')]);
    const decoder = new LogDecoder(true);
    const lines = [];
    for (let i = 0; i < buffer.length; i += 3) lines.push(...decoder.push(buffer.subarray(i, i + 3)));
    lines.push(...decoder.end());
    expect(lines.map((line) => [line.stream, line.text])).toEqual([
      ['stdout', 'café ☕'],
      ['stderr', 'half line'],
    ]);
  });

  it('returns an unterminated last line at the end, and replaces invalid UTF-8', () => {
    const lines = decodeLogs(Buffer.concat([frame(1, 'first\n'), frame(1, 'bad \xff'), Buffer.from([])]), true);
    expect(lines.map((line) => line.text)).toEqual(['first', 'bad ÿ']);
    const invalid = decodeLogs(Buffer.concat([Buffer.from([1, 0, 0, 0, 0, 0, 0, 2]), Buffer.from([0xff, 0x0a])]), true);
    expect(invalid[0]?.text).toBe('\uFFFD');
  });

  it('reads a TTY container (no frames) as stdout', () => {
    expect(decodeLogs(Buffer.from('2026-11-22T08:00:00Z a\nb\n'), false)).toEqual([
      { stream: 'stdout', text: 'a', time: new Date('2026-11-22T08:00:00Z') },
      { stream: 'stdout', text: 'b', time: undefined },
    ]);
  });
});
