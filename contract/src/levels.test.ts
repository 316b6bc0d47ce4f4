import { describe, expect, it } from 'vitest';
import { COURSE_FILE_EXTENSIONS, courseFileTypeRefused } from './levels.ts';

describe('course files', () => {
  it('lists the allowed extensions in the upload form order, and names them in the refusal', () => {
    expect(COURSE_FILE_EXTENSIONS).toEqual(['pdf', 'zip', 'png', 'jpg', 'jpeg', 'txt', 'md', 'docx', 'pptx', 'xlsx']);
    expect(courseFileTypeRefused()).toBe('Dit soort bestand kan niet. Toegestaan: pdf, zip, png, jpg, jpeg, txt, md, docx, pptx, xlsx.');
  });
});
