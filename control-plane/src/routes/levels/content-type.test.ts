import { describe, expect, it } from 'vitest';
import { attachmentDisposition, contentTypeOf } from './content-type.ts';

describe('contentTypeOf', () => {
  it('uses a stored MIME type as it is', () => {
    expect(contentTypeOf('application/pdf', 'x.bin')).toBe('application/pdf');
  });

  it('derives the type from the extension when the stored type is a label', () => {
    expect(contentTypeOf('PDF', 'opdracht.pdf')).toBe('application/pdf');
    expect(contentTypeOf('ZIP', 'startbestanden.ZIP')).toBe('application/zip');
    expect(contentTypeOf('PDF', 'zonder-extensie')).toBe('application/pdf');
  });

  it('falls back to a byte stream', () => {
    expect(contentTypeOf('Iets', 'bestand.xyz')).toBe('application/octet-stream');
    expect(contentTypeOf('text/html; <script>', 'a.html')).toBe('application/octet-stream');
  });
});

describe('attachmentDisposition', () => {
  it('always says attachment, with an ASCII fallback and the exact UTF-8 name', () => {
    expect(attachmentDisposition('opdracht 1.pdf')).toBe(`attachment; filename="opdracht 1.pdf"; filename*=UTF-8''opdracht%201.pdf`);
    expect(attachmentDisposition('café "x".pdf')).toBe(
      `attachment; filename="caf_ _x_.pdf"; filename*=UTF-8''caf%C3%A9%20%22x%22.pdf`,
    );
  });
});
