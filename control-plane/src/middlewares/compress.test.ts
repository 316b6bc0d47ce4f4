import { describe, expect, it } from 'vitest';
import { isCompressible } from './compress.ts';

describe('isCompressible', () => {
  it('compresses text answers: HTML, CSS, JavaScript, JSON (also NDJSON and +json), XML and SVG', () => {
    for (const type of ['text/html', 'text/css', 'text/plain', 'application/javascript', 'application/json', 'application/x-ndjson', 'application/problem+json', 'application/xml', 'image/svg+xml']) {
      expect(isCompressible(type), type).toBe(true);
    }
  });

  it('never compresses server-sent events, PNG thumbnails or other binary answers', () => {
    for (const type of ['text/event-stream', 'image/png', 'image/jpeg', 'image/webp', 'application/octet-stream', 'application/zip', 'application/gzip', '']) {
      expect(isCompressible(type), type).toBe(false);
    }
  });
});
