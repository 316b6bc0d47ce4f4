import useSWR, { type KeyedMutator } from 'swr';
import { api, apiFetcher, ApiError, statusMessage } from '../client.ts';
import type { GroupJson } from '@devplein/contract/users';
import { listGroups } from '@devplein/contract/http/admin-groups';
import { useEndpoint } from '../endpoints.ts';
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

export const adminLevelKeys = {
  categories: '/api/admin/level/categories',
  category: (id: number | string) => `/api/level/categories/show/${id}`,
  contents: '/api/level/content/index',
  contentsOfCategory: (categoryId: number) => `/api/level/content/index-by-category/${categoryId}`,
  content: (id: number | string) => `/api/level/content/show/${id}`,
  courses: (contentId: number | string) => `/api/level/content/${contentId}/courses`,
  groupStudents: (groupId: number) => `/api/users/by-group/${groupId}`,
};

/** The group search of the admin levels page uses this term (spec §9). */
export const GROUP_SEARCH_TERM = 'SD';

/** Spec §9: the content selects refresh this long after the levels loaded. */
export const CONTENT_REFRESH_DELAY_MS = 300;

export function useLevelCategories() {
  return useSWR<AdminLevelCategory[]>(adminLevelKeys.categories, apiFetcher);
}

export function useLevelCategory(id: string | undefined) {
  return useSWR<AdminLevelCategory>(id === undefined ? null : adminLevelKeys.category(id), apiFetcher);
}

export function useLevelContents() {
  return useSWR<LevelContentItem[]>(adminLevelKeys.contents, apiFetcher);
}

export function useLevelContent(id: string | undefined) {
  return useSWR<LevelContentItem>(id === undefined ? null : adminLevelKeys.content(id), apiFetcher);
}

export function useCourses(contentId: string | undefined) {
  return useSWR<Course[]>(contentId === undefined ? null : adminLevelKeys.courses(contentId), apiFetcher);
}

export function useGroups(search: string) {
  return useEndpoint(listGroups, { query: { search } });
}

/** The whole table of a group in one request (students with all their levels). */
export function useGroupStudents(groupId: number | null) {
  return useSWR<GroupStudent[]>(groupId === null ? null : adminLevelKeys.groupStudents(groupId), apiFetcher, {
    revalidateOnFocus: false,
  });
}

/**
 * Content options of one category. Loaded only once `enabled` (the page turns it on 300 ms after
 * the levels arrived, spec §9), so the table itself renders first.
 */
export function useContentsOfCategory(categoryId: number, enabled: boolean) {
  return useSWR<LevelContentItem[]>(enabled ? adminLevelKeys.contentsOfCategory(categoryId) : null, apiFetcher, {
    revalidateOnFocus: false,
  });
}

export const saveLevelCategory = (id: number | null, input: LevelCategoryInput) =>
  id === null
    ? api.post<AdminLevelCategory>('/api/level/categories/store', input)
    : api.post<AdminLevelCategory>(`/api/level/categories/update/${id}`, input);

export const saveLevelContent = (id: number | null, input: LevelContentInput) =>
  id === null
    ? api.post<LevelContentItem>('/api/level/content/store', input)
    : api.post<LevelContentItem>(`/api/level/content/update/${id}`, input);

export const courseMutations = {
  add: (contentId: number, title: string) => api.post<Course>(`/api/level/content/${contentId}/courses`, { title }),
  rename: (courseId: number, title: string) => api.put(`/api/level/courses/${courseId}`, { title }),
  remove: (courseId: number) => api.delete(`/api/level/courses/${courseId}`),
  move: (courseId: number, direction: MoveDirection) => api.post(`/api/level/courses/${courseId}/move`, { direction }),
  addText: (courseId: number, text: { title: string; body: string }) => api.post<CourseText>(`/api/level/courses/${courseId}/texts`, text),
  saveText: (courseId: number, textId: number, text: { title: string; body: string }) =>
    api.put<CourseText>(`/api/level/courses/${courseId}/texts/${textId}`, text),
  removeText: (courseId: number, textId: number) => api.delete(`/api/level/courses/${courseId}/texts/${textId}`),
  moveText: (courseId: number, textId: number, direction: MoveDirection) =>
    api.post(`/api/level/courses/${courseId}/texts/${textId}/move`, { direction }),
  renameFile: (courseId: number, fileId: number, title: string) => api.put(`/api/level/courses/${courseId}/files/${fileId}`, { title }),
  removeFile: (courseId: number, fileId: number) => api.delete(`/api/level/courses/${courseId}/files/${fileId}`),
  moveFile: (courseId: number, fileId: number, direction: MoveDirection) =>
    api.post(`/api/level/courses/${courseId}/files/${fileId}/move`, { direction }),
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
  const query = new URLSearchParams({ title, filename: file.name });
  const response = await fetch(`/api/level/courses/${courseId}/files?${query}`, {
    method: 'POST',
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

/** POST /api/level/update/multiple: the two bulk forms (content_id only in the content variant). */
export const updateLevels = (change: {
  level: number;
  status: LevelStatus;
  category_id: number;
  ids: number[];
  content_id?: number;
}) => api.post<{ updated: number; levels: StudentLevel[] }>('/api/level/update/multiple', change);

/** POST /api/level/update-status: one cell's status. */
export const updateLevelStatus = (levelId: number, status: LevelStatus) =>
  api.post<{ status: LevelStatus }>('/api/level/update-status', { level: levelId, status });

/** POST /api/level/store: one cell's content; creates the record (status locked) when there is none. */
export const storeLevel = (cell: { number: number; content_id: number | null; category_id: number; user: number }) =>
  api.post<{ status: LevelStatus; level_content_id: number | null; id: number }>('/api/level/store', {
    level: cell.number,
    ...cell,
  });

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
