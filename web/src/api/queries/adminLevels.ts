import type { KeyedMutator } from 'swr';
import { ApiError, statusMessage } from '../client.ts';
import type { GroupJson } from '@devplein/contract/users';
import { listGroups } from '@devplein/contract/http/admin-groups';
import {
  addCourse,
  addCourseText,
  deleteCourse,
  deleteCourseFile,
  deleteCourseText,
  groupStudentLevels,
  listAdminLevelCategories,
  listCourses,
  listLevelContents,
  listLevelContentsOfCategory,
  moveCourse,
  moveCourseFile,
  moveCourseText,
  renameCourse,
  renameCourseFile,
  showLevelCategory,
  showLevelContent,
  storeLevelCategory,
  storeLevelContent,
  storeStudentLevel,
  updateCourseText,
  updateLevelCategory,
  updateLevelContent,
  updateLevelStatus as updateLevelStatusEndpoint,
  updateStudentLevels,
  uploadCourseFile as uploadCourseFileEndpoint,
} from '@devplein/contract/http/admin-levels';
import { addressOf } from '@devplein/contract/http/endpoint';
import { call, keyOf, useEndpoint } from '../endpoints.ts';
import { COURSE_FILE_EXTENSIONS, MAX_COURSE_FILE_BYTES } from '@devplein/contract/levels';
import type { LevelStatus, AdminLevelCategoryJson as AdminLevelCategory, LevelContentJson as LevelContentItem, CourseTextJson as CourseText, CourseFileJson as CourseFile, CourseJson as Course, StudentLevelJson as StudentLevel, GroupStudentJson as GroupStudent } from '@devplein/contract/levels';
export type { LevelStatus, AdminLevelCategory, LevelContentItem, CourseText, CourseFile, Course, StudentLevel, GroupStudent };

/*
 * The teachers' level tools (spec §2 admin screens, §7 admin calls): swr keys, fetchers and
 * mutations. Every call is admin-only on the server.
 */

/** Status options of a cell, in the order and with the labels of spec §2. */
export const LEVEL_STATUS_OPTIONS: ReadonlyArray<{ value: LevelStatus; label: string }> = [
  { value: 'locked', label: 'Locked' },
  { value: 'open', label: 'Open' },
  { value: 'success', label: 'Success' },
];

export interface LevelCategoryInput {
  title: string;
  number: number;
  icons: boolean;
}

export interface LevelContentInput {
  title: string;
  title_for_teachers: string | null;
  level_categories_id: number;
}

/** A group as the levels page's selector reads it (GET /api/admin/groups without counts). */
export type Group = Pick<GroupJson, 'id' | 'cohort'>;

export type MoveDirection = 'up' | 'down';

/** Largest course file the server takes, and the extensions it allows: the contract's. */
export { COURSE_FILE_EXTENSIONS, MAX_COURSE_FILE_BYTES };

/** SWR keys of the level screens (what useEndpoint reads them under), for a mutation to revalidate. */
export const adminLevelKeys = {
  categories: keyOf(listAdminLevelCategories, {}) as string,
  category: (id: number | string) => keyOf(showLevelCategory, { params: { id } }) as string,
  contents: keyOf(listLevelContents, {}) as string,
  contentsOfCategory: (categoryId: number) => keyOf(listLevelContentsOfCategory, { params: { categoryId } }) as string,
  content: (id: number | string) => keyOf(showLevelContent, { params: { id } }) as string,
  courses: (contentId: number | string) => keyOf(listCourses, { params: { id: contentId } }) as string,
  groupStudents: (groupId: number) => keyOf(groupStudentLevels, { params: { groupId } }) as string,
};

/** The group search of the admin levels page uses this term (spec §9). */
export const GROUP_SEARCH_TERM = 'SD';

/** Spec §9: the content selects refresh this long after the levels loaded. */
export const CONTENT_REFRESH_DELAY_MS = 300;

export function useLevelCategories() {
  return useEndpoint(listAdminLevelCategories, {});
}

export function useLevelCategory(id: string | undefined) {
  return useEndpoint(showLevelCategory, id === undefined ? null : { params: { id } });
}

export function useLevelContents() {
  return useEndpoint(listLevelContents, {});
}

export function useLevelContent(id: string | undefined) {
  return useEndpoint(showLevelContent, id === undefined ? null : { params: { id } });
}

export function useCourses(contentId: string | undefined) {
  return useEndpoint(listCourses, contentId === undefined ? null : { params: { id: contentId } });
}

export function useGroups(search: string) {
  return useEndpoint(listGroups, { query: { search } });
}

/** The whole table of a group in one request (students with all their levels). */
export function useGroupStudents(groupId: number | null) {
  return useEndpoint(groupStudentLevels, groupId === null ? null : { params: { groupId } }, {
    revalidateOnFocus: false,
  });
}

/**
 * Content options of one category. Loaded only once `enabled` (the page turns it on 300 ms after
 * the levels arrived, spec §9), so the table itself renders first.
 */
export function useContentsOfCategory(categoryId: number, enabled: boolean) {
  return useEndpoint(listLevelContentsOfCategory, enabled ? { params: { categoryId } } : null, {
    revalidateOnFocus: false,
  });
}

export const saveLevelCategory = (id: number | null, input: LevelCategoryInput): Promise<AdminLevelCategory> =>
  id === null ? call(storeLevelCategory, { body: input }) : call(updateLevelCategory, { params: { id }, body: input });

export const saveLevelContent = (id: number | null, input: LevelContentInput): Promise<LevelContentItem> =>
  id === null ? call(storeLevelContent, { body: input }) : call(updateLevelContent, { params: { id }, body: input });

export const courseMutations = {
  add: (contentId: number, title: string) => call(addCourse, { params: { id: contentId }, body: { title } }),
  rename: (courseId: number, title: string) => call(renameCourse, { params: { courseId }, body: { title } }),
  remove: (courseId: number) => call(deleteCourse, { params: { courseId } }),
  move: (courseId: number, direction: MoveDirection) => call(moveCourse, { params: { courseId }, body: { direction } }),
  addText: (courseId: number, text: { title: string; body: string }) => call(addCourseText, { params: { courseId }, body: text }),
  saveText: (courseId: number, textId: number, text: { title: string; body: string }) =>
    call(updateCourseText, { params: { courseId, textId }, body: text }),
  removeText: (courseId: number, textId: number) => call(deleteCourseText, { params: { courseId, textId } }),
  moveText: (courseId: number, textId: number, direction: MoveDirection) =>
    call(moveCourseText, { params: { courseId, textId }, body: { direction } }),
  renameFile: (courseId: number, fileId: number, title: string) => call(renameCourseFile, { params: { courseId, fileId }, body: { title } }),
  removeFile: (courseId: number, fileId: number) => call(deleteCourseFile, { params: { courseId, fileId } }),
  moveFile: (courseId: number, fileId: number, direction: MoveDirection) =>
    call(moveCourseFile, { params: { courseId, fileId }, body: { direction } }),
};

/**
 * Uploads a course file as the raw request body (the server reads it as a stream and enforces
 * the size limit); title and file name travel in the query. The shared client only sends JSON or
 * FormData, so this one request is made here, with the same headers and error type.
 */
export async function uploadCourseFile(courseId: number, title: string, file: File): Promise<CourseFile> {
  const headers = new Headers({
    Accept: 'application/json',
    'X-Requested-With': 'XMLHttpRequest',
    // Never a type the body parser would read (json/form): the server wants the bytes untouched.
    'Content-Type': 'application/octet-stream',
  });
  const csrfToken = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content;
  if (csrfToken !== undefined) headers.set('X-CSRF-TOKEN', csrfToken);
  const address = addressOf(uploadCourseFileEndpoint, { params: { courseId }, query: { title, filename: file.name } });
  const response = await fetch(address, {
    method: uploadCourseFileEndpoint.method,
    headers,
    body: file,
    credentials: 'same-origin',
  });
  const text = await response.text();
  let payload: unknown = text;
  try {
    payload = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    // not JSON: keep the text
  }
  if (response.ok) return payload as CourseFile;
  const message =
    typeof payload === 'object' && payload !== null && typeof (payload as { message?: unknown }).message === 'string'
      ? (payload as { message: string }).message
      : statusMessage(response.status);
  throw new ApiError(response.status, message, payload);
}

/** The two bulk forms (content_id only in the content variant). */
export const updateLevels = (change: {
  level: number;
  status: LevelStatus;
  category_id: number;
  ids: number[];
  content_id?: number;
}): Promise<{ updated: number; levels: StudentLevel[] }> => call(updateStudentLevels, { body: change });

/** One cell's status. */
export const updateLevelStatus = (levelId: number, status: LevelStatus): Promise<{ status: LevelStatus }> =>
  call(updateLevelStatusEndpoint, { body: { level: levelId, status } });

/** One cell's content; creates the record (status locked) when there is none. */
export const storeLevel = (cell: { number: number; content_id: number | null; category_id: number; user: number }): Promise<{
  status: LevelStatus;
  level_content_id: number | null;
  id: number;
}> => call(storeStudentLevel, { body: { level: cell.number, ...cell } });

/** The option label of a content item: the teacher title, or the student title when it has none. */
export function contentLabel(item: Pick<LevelContentItem, 'title' | 'title_for_teachers'>): string {
  return item.title_for_teachers !== null && item.title_for_teachers.trim() !== '' ? item.title_for_teachers : item.title;
}

/** Replaces or adds one student's level in a cached group table (after a cell change). */
export function withLevel(students: GroupStudent[] | undefined, level: StudentLevel): GroupStudent[] | undefined {
  if (students === undefined) return undefined;
  return students.map((student) => {
    if (student.id !== level.user_id) return student;
    const others = student.levels.filter((existing) => existing.id !== level.id);
    return { ...student, levels: [...others, level] };
  });
}

export type GroupStudentsMutator = KeyedMutator<GroupStudent[]>;
