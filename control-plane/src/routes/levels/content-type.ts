/** Content types by file extension for course downloads whose stored type is a label such as 'PDF'. */
const TYPES_BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  zip: 'application/zip',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  sql: 'application/sql',
};

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/i;

/**
 * The Content-Type of a course file download: the stored type when it is a MIME type, else one
 * derived from the file name's extension, else a plain byte stream. Downloads are always sent as
 * attachments with nosniff, so the type never makes the browser render a file inline.
 */
export function contentTypeOf(storedType: string, filename: string): string {
  const type = storedType.trim();
  if (MIME.test(type)) return type.toLowerCase();
  const extension = filename.includes('.') ? filename.split('.').pop()!.toLowerCase() : '';
  return TYPES_BY_EXTENSION[extension] ?? TYPES_BY_EXTENSION[type.toLowerCase()] ?? 'application/octet-stream';
}

/** Content-Disposition for a download: an ASCII fallback name plus the exact UTF-8 name (RFC 6266). */
export function attachmentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_') || 'bestand';
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(filename)}`;
}

const encodeRfc5987 = (value: string): string =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
