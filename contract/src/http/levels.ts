/**
 * Levels for students (spec §2 Levels, §7): the overview, one level with its courses, and course
 * file downloads. Activated accounts; the route lets through only students the Levels menu is
 * for and admins (403 otherwise), answers someone else's level as 404 and a locked one as 403.
 * The teachers' tools are contract/src/http/admin-levels.ts.
 */
import { z } from 'zod';
import { levelCategoryJson, levelJson } from '../levels.ts';
import { endpoint, file, json } from './endpoint.ts';
import { recordId } from './ids.ts';

export const levelCategories = endpoint({
  method: 'GET',
  path: '/api/level/categories/index',
  access: 'active',
  summary: "Every category with the caller's tiles 1..n (the §9 rule applied; placeholders where they have no level).",
  answer: json(z.array(levelCategoryJson)),
});

export const courseFile = endpoint({
  method: 'GET',
  path: '/api/level/files/:fileId',
  access: 'active',
  summary:
    "Downloads a course file as an attachment (nosniff, no-store; its type from the stored type or the extension): a student's own unlocked level's file, any file for admins. Not theirs: 404; locked: 403.",
  params: z.object({ fileId: recordId('Ongeldig bestandsnummer.') }),
  answer: file('application/octet-stream'),
});

export const level = endpoint({
  method: 'GET',
  path: '/api/level/:id',
  access: 'active',
  summary: "One of the caller's levels (any for admins) with its courses, texts and files; someone else's: 404; locked for a student: 403.",
  params: z.object({ id: recordId('Ongeldig levelnummer.') }),
  answer: json(levelJson),
});

export const levelEndpoints = [levelCategories, courseFile, level];
