/**
 * Just enough PNG reading to check a screenshot: its size from the IHDR chunk, and the pixels
 * of the 8-bit, non-interlaced truecolour/greyscale images Chromium writes (to tell a real page
 * from a blank one). Not a general decoder: palette, 16-bit and interlaced images are refused.
 */
import { inflateSync } from 'node:zlib';

const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface PngSize {
  width: number;
  height: number;
}

/** Width and height of a PNG, or an error when `png` is not one. */
export function readPngSize(png: Uint8Array): PngSize {
  const buffer = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (buffer.length < 24 || !buffer.subarray(0, 8).equals(signature) || buffer.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG image');
  }
  return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
}

export interface PngPixels extends PngSize {
  /** Samples per pixel: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA. */
  channels: number;
  /** Unfiltered samples, row after row. */
  data: Buffer;
}

const channelsOfColourType: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

/** Decodes the pixels of an 8-bit, non-interlaced PNG. */
export function decodePng(png: Uint8Array): PngPixels {
  const buffer = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  const { width, height } = readPngSize(buffer);
  const bitDepth = buffer[24];
  const colourType = buffer[25] ?? -1;
  const interlace = buffer[28];
  const channels = channelsOfColourType[colourType];
  if (bitDepth !== 8 || channels === undefined || interlace !== 0) {
    throw new Error(`unsupported PNG (bit depth ${bitDepth}, colour type ${colourType}, interlace ${interlace})`);
  }
  const parts: Buffer[] = [];
  for (let offset = 8; offset + 8 <= buffer.length; ) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    if (type === 'IDAT') parts.push(buffer.subarray(offset + 8, offset + 8 + length));
    if (type === 'IEND') break;
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(parts));
  const stride = width * channels;
  if (raw.length < height * (stride + 1)) throw new Error('PNG data is truncated');
  const data = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = y * stride;
    for (let x = 0; x < stride; x += 1) {
      const left = x >= channels ? data[out + x - channels]! : 0;
      const up = y > 0 ? data[out - stride + x]! : 0;
      const upLeft = y > 0 && x >= channels ? data[out - stride + x - channels]! : 0;
      let predictor: number;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = left;
          break;
        case 2:
          predictor = up;
          break;
        case 3:
          predictor = (left + up) >> 1;
          break;
        case 4: {
          const estimate = left + up - upLeft;
          const toLeft = Math.abs(estimate - left);
          const toUp = Math.abs(estimate - up);
          const toUpLeft = Math.abs(estimate - upLeft);
          predictor = toLeft <= toUp && toLeft <= toUpLeft ? left : toUp <= toUpLeft ? up : upLeft;
          break;
        }
        default:
          throw new Error(`bad PNG filter ${filter} on row ${y}`);
      }
      data[out + x] = (line[x]! + predictor) & 0xff;
    }
  }
  return { width, height, channels, data };
}

/** The RGB of pixel (x, y) (grey images give three equal values). */
export function pixelAt(image: PngPixels, x: number, y: number): [number, number, number] {
  const at = (y * image.width + x) * image.channels;
  const { data } = image;
  if (image.channels <= 2) return [data[at]!, data[at]!, data[at]!];
  return [data[at]!, data[at + 1]!, data[at + 2]!];
}

/** Number of distinct RGB colours in the image (stops counting at `limit`). */
export function distinctColours(image: PngPixels, limit = 1_000): number {
  const seen = new Set<number>();
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x < image.width; x += 1) {
      const [r, g, b] = pixelAt(image, x, y);
      seen.add((r << 16) | (g << 8) | b);
      if (seen.size >= limit) return seen.size;
    }
  }
  return seen.size;
}
