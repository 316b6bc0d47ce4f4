import { describe, expect, it } from 'vitest';
import { bulkLevelBody, categoryBody, courseFileUploadQuery, levelStoreBody } from '@devplein/contract/http/admin-levels';
import { MISSING_FIELDS_MESSAGE as MISSING_FIELDS, NO_STUDENTS_MESSAGE as NO_STUDENTS } from '@devplein/contract/messages';
import { courseFileType } from './courses.ts';

describe('admin level input', () => {
  it('takes the icons flag as boolean or 0/1 and trims the title', () => {
    expect(categoryBody.parse({ title: ' Back-end ', number: '8', icons: 1 })).toEqual({ title: 'Back-end', number: 8, icons: true });
    expect(categoryBody.parse({ title: 'x', number: 1, icons: '0' }).icons).toBe(false);
    expect(categoryBody.parse({ title: 'x', number: 50 }).icons).toBe(false);
    expect(categoryBody.safeParse({ title: 'x', number: 1, icons: 'ja' }).success).toBe(false);
  });

  it('answers the spec alerts for missing bulk fields and students', () => {
    const result = bulkLevelBody.safeParse({ level: '', status: '', category_id: 1, ids: [] });
    expect(result.success).toBe(false);
    const messages = Object.fromEntries(result.error!.issues.map((issue) => [issue.path.join('.'), issue.message]));
    expect(messages).toEqual({ level: MISSING_FIELDS, status: MISSING_FIELDS, ids: NO_STUDENTS });
  });

  it('accepts ids as numbers or digit strings and drops duplicates', () => {
    expect(bulkLevelBody.parse({ level: '3', status: 'open', category_id: '2', ids: [5, '5', 6] })).toEqual({
      level: 3,
      status: 'open',
      category_id: 2,
      ids: [5, 6],
    });
    expect(bulkLevelBody.safeParse({ level: 1.5, status: 'open', category_id: 1, ids: [1] }).success).toBe(false);
    expect(bulkLevelBody.safeParse({ level: 1, status: 'open', category_id: 1, ids: ['1e3'] }).success).toBe(false);
  });

  it('lets store carry level as the same number (or null), and null content', () => {
    expect(levelStoreBody.parse({ level: 4, number: 4, content_id: 2, category_id: 1, user: 9 }).number).toBe(4);
    expect(levelStoreBody.parse({ level: null, number: 4, content_id: null, category_id: 1, user: 9 }).content_id).toBeNull();
    expect(levelStoreBody.safeParse({ level: 3, number: 4, content_id: 2, category_id: 1, user: 9 }).success).toBe(false);
  });

  it('refuses file names with folders or control characters', () => {
    expect(courseFileUploadQuery.safeParse({ title: 'a', filename: 'opdracht 1.pdf' }).success).toBe(true);
    for (const filename of ['../x.pdf', 'a\\b.pdf', 'a\nb.pdf', '..']) {
      expect(courseFileUploadQuery.safeParse({ title: 'a', filename }).success, filename).toBe(false);
    }
  });

  it('types course files by extension, case-insensitively, and refuses the rest', () => {
    expect(courseFileType('Slides.PPTX')).toBe('PowerPoint');
    expect(courseFileType('foto.jpeg')).toBe('JPG');
    expect(courseFileType('run.exe')).toBeUndefined();
    expect(courseFileType('constructor')).toBeUndefined();
    expect(courseFileType('x.constructor')).toBeUndefined();
  });
});
