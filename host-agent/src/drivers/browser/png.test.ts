import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodePng, distinctColours, pixelAt, readPngSize } from './png.ts';

/** CRC-32 as PNG chunks use it. */
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])));
  return Buffer.concat([head, body, crc]);
}

/** An RGB PNG with the given rows (each row one filter byte, then pixels). */
function makePng(width: number, rows: Array<{ filter: number; bytes: number[] }>): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(rows.length, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.from(rows.flatMap((row) => [row.filter, ...row.bytes]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('png', () => {
  it('reads the size and refuses what is not a PNG', () => {
    const png = makePng(2, [{ filter: 0, bytes: [1, 2, 3, 4, 5, 6] }]);
    expect(readPngSize(png)).toEqual({ width: 2, height: 1 });
    expect(() => readPngSize(Buffer.from('<html>'))).toThrow('not a PNG');
  });

  it('undoes the row filters', () => {
    const png = makePng(2, [
      { filter: 0, bytes: [10, 20, 30, 40, 50, 60] },
      // Sub: second pixel = first + delta.
      { filter: 1, bytes: [1, 1, 1, 5, 5, 5] },
      // Up: same as the row above plus delta.
      { filter: 2, bytes: [0, 0, 0, 1, 1, 1] },
      // Average and Paeth on a uniform row give back the row above.
      { filter: 3, bytes: [1, 1, 1, 0, 0, 0] },
      { filter: 4, bytes: [0, 0, 0, 0, 0, 0] },
    ]);
    const image = decodePng(png);
    expect(image.channels).toBe(3);
    expect(pixelAt(image, 0, 0)).toEqual([10, 20, 30]);
    expect(pixelAt(image, 1, 0)).toEqual([40, 50, 60]);
    expect(pixelAt(image, 0, 1)).toEqual([1, 1, 1]);
    expect(pixelAt(image, 1, 1)).toEqual([6, 6, 6]);
    expect(pixelAt(image, 0, 2)).toEqual([1, 1, 1]);
    expect(pixelAt(image, 1, 2)).toEqual([7, 7, 7]);
    // Average: left is 0 at x=0 → (0 + 1) >> 1 = 0, plus 1.
    expect(pixelAt(image, 0, 3)).toEqual([1, 1, 1]);
    expect(pixelAt(image, 1, 3)).toEqual([4, 4, 4]);
    expect(pixelAt(image, 0, 4)).toEqual([1, 1, 1]);
    expect(distinctColours(image)).toBe(6);
  });
});
