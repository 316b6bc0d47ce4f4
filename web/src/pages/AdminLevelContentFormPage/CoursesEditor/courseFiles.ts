import { COURSE_FILE_EXTENSIONS, MAX_COURSE_FILE_BYTES } from '../../../api/queries/adminLevels.ts';
import { courseFileTypeRefused } from '@devplein/contract/levels';
import { EMPTY_FILE_MESSAGE } from '@devplein/contract/messages';

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The file input's accept list: the extensions the server takes. */
export const ACCEPT = COURSE_FILE_EXTENSIONS.map((extension) => `.${extension}`).join(',');

/** Checks a chosen file as the server will (type by extension, size), so a teacher hears it at once. */
export function fileProblem(file: File): string | null {
  const extension = file.name.includes('.') ? file.name.split('.').pop()!.toLowerCase() : '';
  if (!COURSE_FILE_EXTENSIONS.includes(extension)) {
    return courseFileTypeRefused();
  }
  if (file.size > MAX_COURSE_FILE_BYTES) return 'Het bestand is te groot: hoogstens 10 MB.';
  if (file.size === 0) return EMPTY_FILE_MESSAGE;
  return null;
}

/** A file's name without its extension: the default title. */
export const baseName = (file: File): string => file.name.replace(/\.[^.]+$/, '');
